// Settings (spec: Authentication): API tokens (the secret shown once, in its creation dialog only), organization
// members and roles, provider keys for admins, credits and the ledger.
import { useEffect, useState } from 'react';
import { Checkbox, CheckboxGroup, Dialog, Heading, Label, Modal } from 'react-aria-components';
import { client, newOperationKey, unwrap } from '../client.ts';
import type { ApiToken, Provider, ProviderKey, TokenScope } from '../types.ts';
import {
  Action,
  AddCreditsWay,
  Choice,
  CopyButton,
  ErrorBanner,
  Field,
  Pager,
  Status,
  formatDate,
  formatNumber,
  useAction,
  useLoad,
  useSession,
} from '../ui.tsx';

const LEDGER_PAGE_LIMIT = 20;

function TokenCreated({ secret, token, onClose }: { secret: string; token: ApiToken; onClose(): void }) {
  return (
    <Modal isDismissable={false} isOpen className="modal-overlay">
      <Dialog className="modal" aria-label="Your new API token">
        <Heading slot="title">Your new API token</Heading>
        <p>
          This is the only time the token is shown. Copy it now and keep it somewhere safe; it expires on{' '}
          <strong data-testid="token-expiry">{formatDate(token.expires_at)}</strong> (90 days).
        </p>
        <div className="secret">
          <code data-testid="token-secret">{secret}</code>
          <CopyButton text={secret} label="Copy token" />
        </div>
        <p className="muted small">
          Scripts send it as <code>Authorization: Bearer …</code>. The app itself never needs it.
        </p>
        <Action variant="primary" onPress={onClose}>
          I have copied it
        </Action>
      </Dialog>
    </Modal>
  );
}

/** Revokes one item of a list (its DELETE), then reads the list again. */
function useRevoke(revoke: (id: string) => Promise<unknown>, reload: () => void) {
  return useAction(async (id: string) => {
    await revoke(id);
    reload();
  });
}

function RevokeButton({ label, onRevoke }: { label: string; onRevoke(): void }) {
  return (
    <Action variant="danger" aria-label={label} onPress={onRevoke}>
      Revoke
    </Action>
  );
}

function TokenTable({ tokens, orgName, onRevoke }: { tokens: ApiToken[] | undefined; orgName(id: string): string; onRevoke(id: string): void }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Your API tokens</caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>Organization</th>
            <th>Scopes</th>
            <th>Created</th>
            <th>Expires</th>
            <th>Last used</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {tokens?.map((t) => (
            <tr key={t.id} data-testid="token-row">
              <td>{t.name}</td>
              <td>{orgName(t.org_id)}</td>
              <td>{t.scopes.join(', ')}</td>
              <td>{formatDate(t.created_at)}</td>
              <td>{formatDate(t.expires_at)}</td>
              <td>{formatDate(t.last_used_at)}</td>
              <td>
                {t.revoked_at ? <Status value="revoked" /> : new Date(t.expires_at) < new Date() ? <Status value="expired" /> : <Status value="active" />}
              </td>
              <td>{!t.revoked_at && <RevokeButton label={`Revoke token ${t.name}`} onRevoke={() => onRevoke(t.id)} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Tokens() {
  const { me, org_id } = useSession();
  const tokens = useLoad(() => client.GET('/v1/me/api-tokens', { query: { limit: 200 } }).then(unwrap), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['read']);
  // the secret lives only in this state while the dialog is open; closing the dialog forgets it
  const [created, setCreated] = useState<{ secret: string; token: ApiToken } | null>(null);
  const create = useAction(async () => {
    const result = await client.POST('/v1/me/api-tokens', { body: { name, org_id, scopes: scopes as TokenScope[] } }).then(unwrap);
    setCreated(result);
    setName('');
    tokens.reload();
  });
  const revoke = useRevoke((token_id) => client.DELETE('/v1/me/api-tokens/{token_id}', { path: { token_id } }).then(unwrap), tokens.reload);
  const orgName = (id: string) => me.memberships.find((m) => m.org_id === id)?.org_name ?? id;
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <p className="muted">For scripts and your own tools. A token acts in one organization with the scopes you choose, for 90 days.</p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <Field label="Token name" value={name} onChange={setName} isRequired />
        <CheckboxGroup className="checks" value={scopes} onChange={setScopes} aria-label="Scopes">
          <Label>Scopes</Label>
          {['read', 'write', 'run'].map((s) => (
            <Checkbox key={s} value={s}>
              <span className="box" aria-hidden="true" />
              {s}
            </Checkbox>
          ))}
        </CheckboxGroup>
        <Action type="submit" variant="primary" isDisabled={create.pending}>
          Create token
        </Action>
      </form>
      <p className="muted small">For organization {orgName(org_id)}.</p>
      <ErrorBanner error={create.error ?? revoke.error ?? tokens.error} />
      {created && <TokenCreated secret={created.secret} token={created.token} onClose={() => setCreated(null)} />}
      <TokenTable tokens={tokens.value?.data} orgName={orgName} onRevoke={(id) => void revoke.run(id)} />
      {tokens.value?.data.length === 0 && <p className="muted">No tokens yet.</p>}
    </section>
  );
}

const MEMBERS_PAGE_LIMIT = 50;

/** The organization's members and roles (GET /v1/orgs/{org_id}/members). Roles are set by operators, so the list is read-only for everyone. */
function Members() {
  const { me, org_id } = useSession();
  const [offset, setOffset] = useState(0);
  const members = useLoad(
    () => client.GET('/v1/orgs/{org_id}/members', { path: { org_id }, query: { offset, limit: MEMBERS_PAGE_LIMIT } }).then(unwrap),
    [org_id, offset],
  );
  const current = me.memberships.find((m) => m.org_id === org_id);
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members and roles</h2>
      <p className="muted">
        Members of {current?.org_name ?? org_id}; you are <strong>{current?.role ?? 'not a member'}</strong>. Roles are assigned by an operator, so this list is
        read-only
        {current?.role === 'owner' ? ' for owners too' : ''}.
      </p>
      <ErrorBanner error={members.error} />
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Members of the organization</caption>
          <thead>
            <tr>
              <th>Member</th>
              <th>Role</th>
              <th>Member since</th>
            </tr>
          </thead>
          <tbody>
            {members.value?.data.map((m) => (
              <tr key={m.user_id} data-testid="member-row">
                <td>
                  {m.email}
                  {m.user_id === me.user.id && <span className="muted small"> (you)</span>}
                </td>
                <td>
                  <span className="chip">{m.role}</span>
                </td>
                <td>{formatDate(m.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {members.value && <Pager offset={offset} next={members.value.next_offset} limit={MEMBERS_PAGE_LIMIT} onPage={setOffset} />}
    </section>
  );
}

function ProviderKeyTable({ keys, isAdmin, onRevoke }: { keys: ProviderKey[] | undefined; isAdmin: boolean; onRevoke(id: string): void }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Provider</th>
            <th>Label</th>
            <th>Key</th>
            <th>Added</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys?.map((k) => (
            <tr key={k.id}>
              <td>{k.provider}</td>
              <td>{k.label}</td>
              <td>
                <code>…{k.last4}</code>
              </td>
              <td>{formatDate(k.created_at)}</td>
              <td>{k.revoked_at ? <Status value="revoked" /> : <Status value="active" />}</td>
              <td>{isAdmin && !k.revoked_at && <RevokeButton label={`Revoke ${k.provider} key ${k.label}`} onRevoke={() => onRevoke(k.id)} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const PROVIDERS = [
  { value: 'openai', label: 'OpenAI' },
  { value: 'anthropic', label: 'Anthropic' },
  { value: 'google', label: 'Google' },
];

function ProviderKeys() {
  const { me, org_id } = useSession();
  const role = me.memberships.find((m) => m.org_id === org_id)?.role;
  const isAdmin = role === 'admin' || role === 'owner';
  const keys = useLoad(() => client.GET('/v1/orgs/{org_id}/provider-keys', { path: { org_id }, query: { limit: 200 } }).then(unwrap), [org_id]);
  const [provider, setProvider] = useState('openai');
  const [label, setLabel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const add = useAction(async () => {
    await client
      .POST('/v1/orgs/{org_id}/provider-keys', {
        path: { org_id },
        body: { provider: provider as Provider, label, api_key: apiKey },
        idempotencyKey: newOperationKey(),
      })
      .then(unwrap);
    setApiKey('');
    setLabel('');
    keys.reload();
  });
  const revoke = useRevoke((key_id) => client.DELETE('/v1/orgs/{org_id}/provider-keys/{key_id}', { path: { org_id, key_id } }).then(unwrap), keys.reload);
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">AI provider keys</h2>
      <p className="muted">
        Your organization's own keys (bring your own key): work run with them costs no credits. The key is never shown again; only its last four characters.
      </p>
      {isAdmin ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void add.run();
          }}
        >
          <Choice label="Provider" value={provider} onChange={setProvider} options={PROVIDERS} />
          <Field label="Label" value={label} onChange={setLabel} />
          <Field label="API key" type="password" value={apiKey} onChange={setApiKey} isRequired autoComplete="off" />
          <Action type="submit" variant="primary" isDisabled={add.pending}>
            Add key
          </Action>
        </form>
      ) : (
        <p className="muted">Only an organization admin can add or revoke keys.</p>
      )}
      <ErrorBanner error={add.error ?? revoke.error ?? keys.error} />
      <ProviderKeyTable keys={keys.value?.data} isAdmin={isAdmin} onRevoke={(id) => void revoke.run(id)} />
    </section>
  );
}

const LEDGER_KINDS: Record<string, string> = {
  grant: 'Credits granted',
  purchase: 'Credits bought',
  allocation: 'Credits from a sponsor program',
  reservation: 'Held for a job while it runs',
  settlement: 'Job finished: charged at actual use, the rest returned',
  release: 'Hold released: nothing charged',
  adjustment: 'Adjustment by an operator',
};
const SUBJECTS: Record<string, string> = { intake_draft: 'intake draft', review: 'review', run: 'simulation run', session: 'authoring session' };

function CreditsPanel() {
  const { org_id } = useSession();
  const [offset, setOffset] = useState(0);
  const credits = useLoad(() => client.GET('/v1/orgs/{org_id}/credits', { path: { org_id } }).then(unwrap), [org_id]);
  const ledger = useLoad(
    () => client.GET('/v1/orgs/{org_id}/ledger', { path: { org_id }, query: { offset, limit: LEDGER_PAGE_LIMIT } }).then(unwrap),
    [org_id, offset],
  );
  // the header's "How to add credits" opens this section
  const loaded = credits.value !== undefined;
  useEffect(() => {
    if (loaded && location.hash === '#credits') document.getElementById('credits-heading')?.scrollIntoView();
  }, [loaded]);
  return (
    <section aria-labelledby="credits-heading">
      <h2 id="credits-heading">Credits</h2>
      <p className="muted">Work that uses AI holds up to its estimate while it runs, then is charged at actual use and the rest returned.</p>
      <ErrorBanner error={credits.error ?? ledger.error} />
      {credits.value && (
        <dl className="stats">
          <div>
            <dt>Available</dt>
            <dd data-testid="credits-available">{formatNumber(credits.value.available_credits)}</dd>
          </div>
          <div>
            <dt>Reserved</dt>
            <dd>{formatNumber(credits.value.reserved_credits)}</dd>
          </div>
        </dl>
      )}
      {credits.value && (
        <>
          <h3>Adding credits</h3>
          <AddCreditsWay advice={credits.value.add_credits} />
        </>
      )}
      <h3>Ledger</h3>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>What</th>
              <th>For</th>
              <th>Credits</th>
              <th>Change to available</th>
            </tr>
          </thead>
          <tbody>
            {ledger.value?.data.map((e) => (
              <tr key={e.id}>
                <td>{formatDate(e.created_at)}</td>
                <td>
                  {LEDGER_KINDS[e.kind] ?? e.kind.replaceAll('_', ' ')}
                  {(e.kind === 'grant' || e.kind === 'adjustment') && e.reason && <span className="muted small">: {e.reason}</span>}
                  {e.status !== 'posted' && <span className="muted small"> ({e.status})</span>}
                </td>
                <td>{e.subject ? (SUBJECTS[e.subject.kind] ?? 'a job') : '—'}</td>
                <td>{formatNumber(e.credits)}</td>
                <td>{e.available_change_credits > 0 ? `+${formatNumber(e.available_change_credits)}` : formatNumber(e.available_change_credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {ledger.value && <Pager offset={offset} next={ledger.value.next_offset} limit={LEDGER_PAGE_LIMIT} onPage={setOffset} />}
    </section>
  );
}

export function SettingsPage() {
  return (
    <>
      <h1>Settings</h1>
      <Tokens />
      <Members />
      <ProviderKeys />
      <CreditsPanel />
    </>
  );
}
