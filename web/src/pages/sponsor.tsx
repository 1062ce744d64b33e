// Sponsor programs (spec: Sponsor API; Sponsor institution and program; States and transitions), shown only when the
// sponsor flag is on. An organization admin redeems a code; an assigned sponsor administrator sees their institutions
// and programs, creates a draft program, activates or closes it, decides pending enrollments, allocates credits, funds
// the pool with a credit pack (when billing is on) and reads the fixed whole-program report.
import { useState } from 'react';
import { client, newOperationKey, unwrap } from '../client.ts';
import type { Institution, Program } from '../types.ts';
import {
  Action,
  Choice,
  ErrorBanner,
  Field,
  Link,
  Pager,
  Status,
  balanceChanged,
  formatDate,
  formatNumber,
  inSentence,
  navigate,
  useAction,
  useLoad,
  useSession,
} from '../ui.tsx';
import { TechnicalDetails } from '../technical.tsx';
import { PackList, useCheckout } from './billing.tsx';

const PROGRAMS_PAGE_LIMIT = 50;

function Redeem() {
  const { me, org_id } = useSession();
  const role = me.memberships.find((m) => m.org_id === org_id)?.role;
  const [code, setCode] = useState('');
  const redeem = useAction(async () => {
    const result = await client.POST('/v1/sponsors/redeem', { body: { org_id, code: code.trim() }, idempotencyKey: newOperationKey() }).then(unwrap);
    setCode('');
    balanceChanged();
    return result;
  });
  const [result, setResult] = useState<{ program_name: string; status: string } | null>(null);
  return (
    <section aria-labelledby="redeem-heading">
      <h2 id="redeem-heading">Join a sponsor program</h2>
      {role === 'owner' || role === 'admin' ? (
        <form
          className="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            setResult((await redeem.run()) ?? null);
          }}
        >
          <Field label="Program code" value={code} onChange={setCode} isRequired autoComplete="off" />
          <Action type="submit" variant="primary" isDisabled={redeem.pending || !code.trim()}>
            Redeem
          </Action>
        </form>
      ) : (
        <p className="muted">Only an organization owner or admin can redeem a program code; you are {role}.</p>
      )}
      <ErrorBanner error={redeem.error} />
      {result && (
        <div role="status">
          <p className="ok">
            <Status value={result.status} /> Enrolled in {result.program_name}.{' '}
            {result.status === 'pending' ? 'The sponsor decides on your enrollment; no credits are issued until then.' : 'The sponsor allocates your credits.'}
          </p>
          <p className="muted small">The sponsor approves and allocates by your organization's reference: give it to them from the details below.</p>
          <TechnicalDetails summary="Your organization's reference, for the sponsor">
            <p>
              <code>{org_id}</code>
            </p>
          </TechnicalDetails>
        </div>
      )}
    </section>
  );
}

function NewProgram({ institutions, onCreated }: { institutions: Institution[]; onCreated(program: Program): void }) {
  const [sponsor_id, setSponsor] = useState(institutions[0]?.id ?? '');
  const [name, setName] = useState('');
  const [ends, setEnds] = useState('');
  const [cap, setCap] = useState('');
  const [recipients, setRecipients] = useState('');
  const [domains, setDomains] = useState('');
  const [requiresApproval, setRequiresApproval] = useState(true);
  const [cohort, setCohort] = useState('10');
  const create = useAction(async () => {
    const program = await client
      .POST('/v1/sponsors/programs', {
        body: {
          sponsor_id,
          name,
          ends_at: ends ? new Date(ends).toISOString() : '',
          per_recipient_cap: Number(cap),
          max_recipients: Number(recipients),
          eligible_email_domains: domains
            .split(/[\s,]+/)
            .map((d) => d.trim())
            .filter(Boolean),
          requires_approval: requiresApproval,
          report_min_cohort: Number(cohort),
        },
        idempotencyKey: newOperationKey(),
      })
      .then(unwrap);
    onCreated(program);
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <div className="inline-form">
        <Choice label="Institution" value={sponsor_id} onChange={setSponsor} options={institutions.map((i) => ({ value: i.id, label: i.name }))} />
        <Field label="Program name" value={name} onChange={setName} isRequired />
        <Field label="Ends at" type="datetime-local" value={ends} onChange={setEnds} isRequired />
        <Field label="Credits per recipient (cap)" value={cap} onChange={setCap} inputMode="numeric" isRequired />
        <Field label="Maximum recipients" value={recipients} onChange={setRecipients} inputMode="numeric" isRequired />
        <Field
          label="Eligible email domains"
          value={domains}
          onChange={setDomains}
          description="full domains without @, separated by commas; a matching domain alone does not prove affiliation"
        />
        <Field label="Report minimum cohort" value={cohort} onChange={setCohort} inputMode="numeric" description="at least 5" />
        <label className="check">
          <input type="checkbox" checked={requiresApproval} onChange={(e) => setRequiresApproval(e.target.checked)} /> Enrollments need my approval
        </label>
      </div>
      <p className="muted small">A new program is a draft: no credits are issued, no card is charged.</p>
      <ErrorBanner error={create.error} />
      <Action type="submit" variant="primary" isDisabled={create.pending}>
        Create draft program
      </Action>
    </form>
  );
}

export function SponsorPage() {
  const institutions = useLoad(() => client.GET('/v1/sponsors/institutions').then(unwrap), []);
  const [offset, setOffset] = useState(0);
  const programs = useLoad(() => client.GET('/v1/sponsors/programs', { query: { offset, limit: PROGRAMS_PAGE_LIMIT } }).then(unwrap), [offset]);
  const administered = institutions.value?.data ?? [];
  return (
    <>
      <h1>Sponsor programs</h1>
      <Redeem />
      <section aria-labelledby="institutions-heading">
        <h2 id="institutions-heading">Institutions you administer</h2>
        <ErrorBanner error={institutions.error ?? programs.error} />
        {institutions.value && administered.length === 0 && (
          <p className="muted">You administer no sponsor institution. Operators assign sponsor administrators.</p>
        )}
        <ul>
          {administered.map((i) => (
            <li key={i.id}>
              {i.name}{' '}
              {i.verified_at ? <span className="muted small">verified {formatDate(i.verified_at)}</span> : <span className="chip">not verified yet</span>}
            </li>
          ))}
        </ul>
        {programs.value && programs.value.data.length > 0 && (
          <>
            <h3>Programs</h3>
            <ul className="cards">
              {programs.value.data.map((p) => (
                <li key={p.id}>
                  <Link to={`/sponsor/programs/${p.id}`}>{p.name}</Link> <Status value={p.status} />
                  <span className="muted small">
                    {formatDate(p.starts_at)} – {formatDate(p.ends_at)}
                  </span>
                </li>
              ))}
            </ul>
            <Pager offset={offset} next={programs.value.next_offset} limit={PROGRAMS_PAGE_LIMIT} onPage={setOffset} />
          </>
        )}
        {administered.length > 0 && (
          <>
            <h3>New program</h3>
            <NewProgram institutions={administered} onCreated={(program) => navigate(`/sponsor/programs/${program.id}`)} />
          </>
        )}
      </section>
    </>
  );
}

function Report({ program_id }: { program_id: string }) {
  const report = useLoad(() => client.GET('/v1/sponsors/programs/{program_id}/report', { path: { program_id } }).then(unwrap), [program_id]);
  const r = report.value;
  return (
    <section aria-labelledby="report-heading">
      <h2 id="report-heading">Report</h2>
      <ErrorBanner error={report.error} />
      {r && (
        <>
          {r.suppressed && (
            <p className="muted" role="note">
              Usage is not shown: {inSentence(r.reason ?? '')}
            </p>
          )}
          <dl className="stats">
            <div>
              <dt>Pool balance</dt>
              <dd>{formatNumber(r.pool_balance)} credits</dd>
            </div>
            <div>
              <dt>Allocated</dt>
              <dd>{formatNumber(r.credits_allocated)} credits</dd>
            </div>
            {!r.suppressed && (
              <>
                <div>
                  <dt>Active recipients</dt>
                  <dd>{formatNumber(r.active_recipients)}</dd>
                </div>
                <div>
                  <dt>Used</dt>
                  <dd>{formatNumber(r.credits_used)} credits</dd>
                </div>
                <div>
                  <dt>Reserved</dt>
                  <dd>{formatNumber(r.credits_reserved)} credits</dd>
                </div>
                <div>
                  <dt>Evaluations funded</dt>
                  <dd>{formatNumber(r.evaluations_funded)}</dd>
                </div>
              </>
            )}
          </dl>
          <p className="muted small">
            Evaluations funded counts evaluation subjects with sponsored reservations, failed or canceled attempts included; not completed evaluations or
            outcomes.
          </p>
        </>
      )}
    </section>
  );
}

/** The program's settings as created, and the transitions it still allows (draft → active → closed). */
function Configuration({ p, onChanged }: { p: Program; onChanged(program: Program): void }) {
  const setStatus = useAction(async (status: 'active' | 'closed') => {
    onChanged(
      await client
        .POST('/v1/sponsors/programs/{program_id}/status', { path: { program_id: p.id }, body: { status }, idempotencyKey: newOperationKey() })
        .then(unwrap),
    );
  });
  return (
    <section aria-labelledby="program-heading">
      <h2 id="program-heading">Configuration</h2>
      <dl className="spec">
        <div>
          <dt>Window</dt>
          <dd>
            {formatDate(p.starts_at)} – {formatDate(p.ends_at)}
          </dd>
        </div>
        <div>
          <dt>Per recipient cap</dt>
          <dd>{formatNumber(p.per_recipient_cap)} credits</dd>
        </div>
        <div>
          <dt>Maximum recipients</dt>
          <dd>{formatNumber(p.max_recipients)}</dd>
        </div>
        <div>
          <dt>Eligible domains</dt>
          <dd>{p.eligible_email_domains.length ? p.eligible_email_domains.join(', ') : 'any'}</dd>
        </div>
        <div>
          <dt>Enrollments</dt>
          <dd>{p.requires_approval ? 'need approval' : 'active on redemption'}</dd>
        </div>
        <div>
          <dt>Report minimum cohort</dt>
          <dd>{p.report_min_cohort}</dd>
        </div>
      </dl>
      {p.status === 'draft' && (
        <Action variant="primary" onPress={() => void setStatus.run('active')} isDisabled={setStatus.pending}>
          Activate
        </Action>
      )}
      {p.status !== 'closed' && (
        <Action variant="danger" onPress={() => void setStatus.run('closed')} isDisabled={setStatus.pending}>
          Close (cannot be reopened)
        </Action>
      )}
      <ErrorBanner error={setStatus.error} />
    </section>
  );
}

function FundPool({ program_id }: { program_id: string }) {
  const packs = useLoad(() => client.GET('/v1/billing/packs').then(unwrap), []);
  const checkout = useCheckout({ program_id });
  return (
    <section aria-labelledby="fund-heading">
      <h2 id="fund-heading">Fund the pool</h2>
      <p className="muted">Funding does not approve anyone or allocate credits to them.</p>
      <ErrorBanner error={packs.error ?? checkout.error} />
      {packs.value && <PackList packs={packs.value} canBuy pending={checkout.pending} onBuy={(pack) => void checkout.run(pack.pack_key)} />}
    </section>
  );
}

/**
 * The organization a sponsor acts on, by its reference: the API offers no list of a program's enrollments (spec: Sponsor
 * API; docs/decisions.md), so the organization gives its reference, shown to it when it redeems the code.
 */
function OrganizationField({ value, onChange }: { value: string; onChange(value: string): void }) {
  return (
    <Field
      label="Organization reference"
      value={value}
      onChange={onChange}
      placeholder="org_…"
      autoComplete="off"
      description="Crucible does not list the organizations enrolled in a program: the organization sees its reference when it redeems your code, and gives it to you."
    />
  );
}

/** Approve or decline a pending enrollment by organization reference; approving issues no credits. */
function DecideEnrollment({ program_id }: { program_id: string }) {
  const [org_id, setOrgId] = useState('');
  const [note, setNote] = useState('');
  const decide = useAction(async (approve: boolean) => {
    const enrollment = await client
      .POST('/v1/sponsors/programs/{program_id}/members/decide', {
        path: { program_id },
        body: { org_id: org_id.trim(), approve, ...(note.trim() ? { note: note.trim() } : {}) },
        idempotencyKey: newOperationKey(),
      })
      .then(unwrap);
    setOrgId('');
    setNote('');
    return enrollment;
  });
  const [decided, setDecided] = useState<{ org_id: string; status: string } | null>(null);
  return (
    <section aria-labelledby="decide-heading">
      <h2 id="decide-heading">Decide an enrollment</h2>
      <div className="inline-form">
        <OrganizationField value={org_id} onChange={setOrgId} />
        <Field label="Note (optional)" value={note} onChange={setNote} />
        <Action variant="primary" isDisabled={decide.pending || !org_id.trim()} onPress={async () => setDecided((await decide.run(true)) ?? null)}>
          Approve
        </Action>
        <Action isDisabled={decide.pending || !org_id.trim()} onPress={async () => setDecided((await decide.run(false)) ?? null)}>
          Decline
        </Action>
      </div>
      <ErrorBanner error={decide.error} />
      {decided && (
        <div role="status">
          <p>
            The organization's enrollment is now {decided.status.replaceAll('_', ' ')}
            {decided.status === 'active' ? ': approval issues no credits; allocate them below.' : '.'}
          </p>
          <TechnicalDetails summary="Technical details of the decision">
            <p>Organization {decided.org_id}</p>
          </TechnicalDetails>
        </div>
      )}
    </section>
  );
}

/** Move credits from the program's pool to an enrolled organization. */
function AllocateCredits({ program_id }: { program_id: string }) {
  const [org_id, setOrgId] = useState('');
  const [credits, setCredits] = useState('');
  const allocate = useAction(async () => {
    const allocation = await client
      .POST('/v1/sponsors/programs/{program_id}/allocate', {
        path: { program_id },
        body: { org_id: org_id.trim(), credits: Number(credits) },
        idempotencyKey: newOperationKey(),
      })
      .then(unwrap);
    setCredits('');
    return allocation;
  });
  const [allocated, setAllocated] = useState<{ transaction_id: string; credits: number; org_id: string } | null>(null);
  return (
    <section aria-labelledby="allocate-heading">
      <h2 id="allocate-heading">Allocate credits</h2>
      <div className="inline-form">
        <OrganizationField value={org_id} onChange={setOrgId} />
        <Field label="Credits" value={credits} onChange={setCredits} inputMode="numeric" />
        <Action
          variant="primary"
          isDisabled={allocate.pending || !org_id.trim() || !Number.isInteger(Number(credits)) || Number(credits) < 1}
          onPress={async () => setAllocated((await allocate.run()) ?? null)}
        >
          Allocate
        </Action>
      </div>
      <ErrorBanner error={allocate.error} />
      {allocated && (
        <div role="status">
          <p>Allocated {formatNumber(allocated.credits)} credits to the organization, from the program's pool.</p>
          <TechnicalDetails summary="Technical details of the allocation">
            <p>
              Organization {allocated.org_id} · ledger transaction <code>{allocated.transaction_id}</code>
            </p>
          </TechnicalDetails>
        </div>
      )}
    </section>
  );
}

export function ProgramPage({ program_id }: { program_id: string }) {
  const { features } = useSession();
  const program = useLoad(() => client.GET('/v1/sponsors/programs/{program_id}', { path: { program_id } }).then(unwrap), [program_id]);
  const p = program.value;
  return (
    <>
      <p className="crumbs">
        <Link to="/sponsor">Sponsor programs</Link> /
      </p>
      <ErrorBanner error={program.error} />
      {p && (
        <>
          <h1>
            {p.name} <Status value={p.status} />
          </h1>
          <Configuration p={p} onChanged={program.setValue} />
          {features.billing && p.status !== 'closed' && <FundPool program_id={program_id} />}
          <DecideEnrollment program_id={program_id} />
          <AllocateCredits program_id={program_id} />
          <Report program_id={program_id} />
          <TechnicalDetails>
            <p>
              Program {p.id} · sponsor {p.sponsor_id}
            </p>
          </TechnicalDetails>
        </>
      )}
    </>
  );
}
