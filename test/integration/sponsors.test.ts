// Sponsor programs over the real service (PGlite or PostgreSQL, HTTP on a real port): the deployment flag, operator
// provisioning, who may call, the spec's state table row by row with each refusal's code, the cohort-suppressed report,
// concurrent redemptions and allocations, and that a redemption code appears in no response, log line or replay record.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../runtime/logger.ts';
import { runOperator } from '../../runtime/operator.ts';
import { ledgerTotals } from '../../store/credits/ledger.ts';
import { apiToken, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let admin: TestUser;
let institution_id: string;
const DAY = 86_400_000;
const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();
let keyCounter = 0;
const key = () => ({ 'idempotency-key': `k-${++keyCounter}-${Math.random().toString(36).slice(2)}` });
/** Every code issued by this file, to prove none leaks. */
const issuedCodes: string[] = [];
/** Every response body seen by this file. */
const responses: unknown[] = [];

async function call(method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await http(service, method, path, { ...options, headers: { ...(method === 'POST' ? key() : {}), ...options.headers } });
  responses.push(response.body);
  return response;
}

async function operator(command: string, flags: Record<string, string>) {
  return runOperator(service.db, { command, flags }) as Promise<Record<string, any>>;
}

async function newInstitution(verified = true): Promise<{ id: string; admin: TestUser }> {
  const created = await operator('institution create', { name: `Inst ${Math.random().toString(36).slice(2, 8)}` });
  if (verified) await operator('institution verify', { id: created.institution_id, date: '2026-11-01' });
  const user = await signedInOwner(service, 'sponsor');
  await operator('sponsor-admin assign', { institution: created.institution_id, email: user.email });
  return { id: created.institution_id, admin: user };
}

type ProgramOptions = Partial<{
  starts_at: string;
  ends_at: string;
  per_recipient_cap: number;
  max_recipients: number;
  eligible_email_domains: string[];
  requires_approval: boolean;
  report_min_cohort: number;
}>;

async function newProgram(options: ProgramOptions & { activate?: boolean; fund?: number; sponsor?: { id: string; admin: TestUser } } = {}) {
  const sponsor = options.sponsor ?? { id: institution_id, admin };
  const { activate, fund, sponsor: _s, ...fields } = options;
  const created = await call('POST', '/v1/sponsors/programs', {
    token: sponsor.admin.session,
    body: { sponsor_id: sponsor.id, name: 'Pilot', ends_at: at(30), per_recipient_cap: 100, max_recipients: 50, requires_approval: false, ...fields },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (fund) await operator('program fund', { program: created.body.id, credits: String(fund) });
  if (activate ?? true) {
    const activated = await call('POST', `/v1/sponsors/programs/${created.body.id}/status`, { token: sponsor.admin.session, body: { status: 'active' } });
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  }
  return created.body as { id: string };
}

async function issueCode(program_id: string, max_uses = 100): Promise<string> {
  const issued = await operator('code issue', { program: program_id, 'expires-at': at(10), 'max-uses': String(max_uses) });
  issuedCodes.push(issued.code);
  return issued.code;
}

async function redeem(user: TestUser, code: string, headers: Record<string, string> = {}) {
  return call('POST', '/v1/sponsors/redeem', { token: user.session, body: { org_id: user.org_id, code }, headers });
}

async function member(program_id: string, code?: string): Promise<TestUser> {
  const user = await signedInOwner(service, 'member');
  const redeemed = await redeem(user, code ?? (await issueCode(program_id)));
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(201);
  return user;
}

async function allocate(program_id: string, org_id: string, credits: number, token = admin.session) {
  return call('POST', `/v1/sponsors/programs/${program_id}/allocate`, { token, body: { org_id, credits } });
}

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.code).toBe(code);
}

beforeAll(async () => {
  service = await startTestService({ env: { SERVICE_SPONSOR_API_ENABLED: 'true' } });
  const sponsor = await newInstitution();
  institution_id = sponsor.id;
  admin = sponsor.admin;
});
afterAll(async () => {
  await service?.stop();
});

describe('the deployment flag', () => {
  let server: Server;
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('answers every sponsor endpoint 401 without a credential, then 503 SPONSOR_NOT_CONFIGURED while the flag is off', async () => {
    const { app, routes } = createApp({
      config: { ...service.config, sponsor_api_enabled: false },
      db: service.db,
      logger: createLogger({ level: 'silent' }),
      temporal: null,
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const off = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const sponsorRoutes = routes.filter((route) => route.feature === 'sponsor');
    expect(sponsorRoutes.length).toBe(9);
    for (const route of sponsorRoutes) {
      const path = route.path.replace('{program_id}', 'prog_0000000000000000');
      const body = route.method === 'post' ? { body: {} } : {};
      expect((await http(off, route.method.toUpperCase(), path, body)).status, path).toBe(401);
      const response = await http(off, route.method.toUpperCase(), path, { ...body, token: admin.session });
      expect(response.status, path).toBe(503);
      expect(response.body).toMatchObject({ code: 'SPONSOR_NOT_CONFIGURED', request_id: expect.any(String) });
    }
  });
});

describe('operator provisioning and who may call', () => {
  it('lists only the institutions the signed-in user administers, with verification dates', async () => {
    const response = await call('GET', '/v1/sponsors/institutions', { token: admin.session });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([{ id: institution_id, name: expect.any(String), verified_at: '2026-11-01T00:00:00.000Z' }]);
    const stranger = await signedInOwner(service, 'stranger');
    expect((await call('GET', '/v1/sponsors/institutions', { token: stranger.session })).body.data).toEqual([]);
  });

  it('refuses an organization API token on institution endpoints with 403', async () => {
    const program = await newProgram({ activate: false });
    const token = await apiToken(service, admin, ['read', 'write', 'run']);
    expectError(await call('GET', '/v1/sponsors/institutions', { token }), 403, 'FORBIDDEN');
    expectError(await call('GET', `/v1/sponsors/programs/${program.id}`, { token }), 403, 'FORBIDDEN');
    expectError(await call('POST', `/v1/sponsors/programs/${program.id}/status`, { token, body: { status: 'closed' } }), 403, 'FORBIDDEN');
  });

  it('answers 404 to an administrator of another institution and after unassignment', async () => {
    const program = await newProgram({ activate: false });
    const other = await newInstitution();
    for (const [method, path, body] of [
      ['GET', `/v1/sponsors/programs/${program.id}`, undefined],
      ['GET', `/v1/sponsors/programs/${program.id}/report`, undefined],
      ['POST', `/v1/sponsors/programs/${program.id}/status`, { status: 'closed' }],
      ['POST', `/v1/sponsors/programs/${program.id}/allocate`, { org_id: other.admin.org_id, credits: 1 }],
      ['POST', `/v1/sponsors/programs/${program.id}/members/decide`, { org_id: other.admin.org_id, approve: true }],
      ['POST', '/v1/sponsors/programs', { sponsor_id: institution_id, name: 'x', ends_at: at(3), per_recipient_cap: 1, max_recipients: 1 }],
    ] as const) {
      expectError(await call(method, path, { token: other.admin.session, body }), 404, 'NOT_FOUND');
    }
    const list = await call('GET', '/v1/sponsors/programs?limit=200', { token: other.admin.session });
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(program.id);

    await operator('sponsor-admin unassign', { institution: other.id, email: other.admin.email });
    expect((await call('GET', '/v1/sponsors/institutions', { token: other.admin.session })).body.data).toEqual([]);
  });

  it('pages the program list with offset, limit and next_offset', async () => {
    const sponsor = await newInstitution();
    for (let i = 0; i < 3; i++) await newProgram({ sponsor, activate: false });
    const first = await call('GET', '/v1/sponsors/programs?limit=2', { token: sponsor.admin.session });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_offset).toBe(2);
    const second = await call('GET', '/v1/sponsors/programs?limit=2&offset=2', { token: sponsor.admin.session });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_offset).toBeNull();
    expectError(await call('GET', '/v1/sponsors/programs?limit=201', { token: sponsor.admin.session }), 422, 'VALIDATION_FAILED');
  });
});

describe('program creation', () => {
  it('creates a draft with normalized domains and the defaults, issuing no credits', async () => {
    const before = await service.db.transaction((tx) => ledgerTotals(tx));
    const response = await call('POST', '/v1/sponsors/programs', {
      token: admin.session,
      body: {
        sponsor_id: institution_id,
        name: ' Pilot A ',
        ends_at: at(30),
        per_recipient_cap: 500,
        max_recipients: 10,
        eligible_email_domains: ['Uni.EDU', 'uni.edu.'],
      },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      status: 'draft',
      name: 'Pilot A',
      sponsor_id: institution_id,
      eligible_email_domains: ['uni.edu'],
      requires_approval: true,
      report_min_cohort: 10,
    });
    expect(Math.abs(Date.parse(response.body.starts_at) - Date.now())).toBeLessThan(60_000);
    expect(await service.db.transaction((tx) => ledgerTotals(tx))).toEqual(before);
  });

  it('refuses bad fields with 422 naming them', async () => {
    const base = { sponsor_id: institution_id, name: 'P', ends_at: at(30), per_recipient_cap: 1, max_recipients: 1 };
    for (const [change, path] of [
      [{ eligible_email_domains: ['person@uni.edu'] }, '/eligible_email_domains/0'],
      [{ ends_at: at(-1) }, '/ends_at'],
      [{ starts_at: at(10), ends_at: at(5) }, '/ends_at'],
      [{ report_min_cohort: 4 }, '/report_min_cohort'],
      [{ per_recipient_cap: 9007199254740992 }, '/per_recipient_cap'],
    ] as const) {
      const response = await call('POST', '/v1/sponsors/programs', { token: admin.session, body: { ...base, ...change } });
      expectError(response, 422, 'VALIDATION_FAILED');
      expect(response.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it('needs an Idempotency-Key and replays a retried create', async () => {
    const body = { sponsor_id: institution_id, name: 'Replay', ends_at: at(30), per_recipient_cap: 1, max_recipients: 1 };
    expectError(await http(service, 'POST', '/v1/sponsors/programs', { token: admin.session, body }), 422, 'VALIDATION_FAILED');
    const headers = key();
    const first = await call('POST', '/v1/sponsors/programs', { token: admin.session, body, headers });
    const again = await call('POST', '/v1/sponsors/programs', { token: admin.session, body, headers });
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(
      await call('POST', '/v1/sponsors/programs', { token: admin.session, body: { ...body, name: 'Changed' }, headers }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });
});

describe('the state table, one row at a time', () => {
  const status = (program_id: string, value: string, token = admin.session) =>
    call('POST', `/v1/sponsors/programs/${program_id}/status`, { token, body: { status: value } });

  it('Program draft → active needs the institution verification record (409 APPROVAL_REQUIRED)', async () => {
    const unverified = await newInstitution(false);
    const program = await newProgram({ sponsor: unverified, activate: false });
    expectError(await status(program.id, 'active', unverified.admin.session), 409, 'APPROVAL_REQUIRED');
    await operator('institution verify', { id: unverified.id, date: '2026-11-20' });
    const activated = await status(program.id, 'active', unverified.admin.session);
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ status: 'active', activated_at: expect.any(String) });
  });

  it('Program any state except closed → closed', async () => {
    const draft = await newProgram({ activate: false });
    expect((await status(draft.id, 'closed')).body.status).toBe('closed');
    const active = await newProgram();
    expect((await status(active.id, 'closed')).body).toMatchObject({ status: 'closed', closed_at: expect.any(String) });
  });

  it('Program closed → any request is refused with 409 CONFLICT and stays closed', async () => {
    const program = await newProgram();
    await status(program.id, 'closed');
    expectError(await status(program.id, 'active'), 409, 'CONFLICT');
    expectError(await status(program.id, 'closed'), 409, 'CONFLICT');
    expectError(await status(program.id, 'draft'), 422, 'VALIDATION_FAILED');
    expect((await call('GET', `/v1/sponsors/programs/${program.id}`, { token: admin.session })).body.status).toBe('closed');
  });

  it('Enrollment redeem → active without approval, pending with it; the code is not echoed', async () => {
    const open = await newProgram();
    const user = await signedInOwner(service, 'redeemer');
    const code = await issueCode(open.id);
    const response = await redeem(user, code);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      enrollment_id: expect.any(String),
      program_id: open.id,
      program_name: 'Pilot',
      org_id: user.org_id,
      status: 'active',
      created_at: expect.any(String),
    });
    const gated = await newProgram({ requires_approval: true });
    expect((await redeem(user, await issueCode(gated.id))).body.status).toBe('pending');
  });

  it('Enrollment redeem refusals: wrong, expired or used-up code 404; duplicate 409; ineligible, inactive, scheduled or full 422; closed or ended 409', async () => {
    const program = await newProgram({ eligible_email_domains: ['example.org'], max_recipients: 2 });
    const user = await signedInOwner(service, 'refused');
    expectError(await redeem(user, 'AAAAA-BBBBB-CCCCC-DDDDD-EEEEE'), 404, 'NOT_FOUND');
    const once = await issueCode(program.id, 1);
    await member(program.id, once);
    expectError(await redeem(user, once), 404, 'NOT_FOUND');
    const revoked = await operator('code issue', { program: program.id, 'expires-at': at(1), 'max-uses': '5' });
    issuedCodes.push(revoked.code);
    await operator('code revoke', { id: revoked.code_id });
    expectError(await redeem(user, revoked.code), 404, 'NOT_FOUND');
    const expiring = await operator('code issue', { program: program.id, 'expires-at': at(1), 'max-uses': '5' });
    issuedCodes.push(expiring.code);
    await service.db.query(`update sponsor_codes set expires_at = now() - interval '1 second' where id = ?`, [expiring.code_id]);
    expectError(await redeem(user, expiring.code), 404, 'NOT_FOUND');

    const code = await issueCode(program.id);
    expect((await redeem(user, code)).status).toBe(201);
    expectError(await redeem(user, code), 409, 'CONFLICT');
    // program full: two recipients of max_recipients 2
    expectError(await redeem(await signedInOwner(service, 'late'), code), 422, 'VALIDATION_FAILED');

    const elsewhere = await newProgram({ eligible_email_domains: ['uni.edu'] });
    expectError(await redeem(user, await issueCode(elsewhere.id)), 422, 'VALIDATION_FAILED');
    const draft = await newProgram({ activate: false });
    expectError(await redeem(user, await issueCode(draft.id)), 422, 'VALIDATION_FAILED');
    const scheduled = await newProgram({ starts_at: at(2) });
    expectError(await redeem(user, await issueCode(scheduled.id)), 422, 'VALIDATION_FAILED');
    const closed = await newProgram();
    const closedCode = await issueCode(closed.id);
    await status(closed.id, 'closed');
    expectError(await redeem(user, closedCode), 409, 'CONFLICT');
    const ended = await newProgram();
    const endedCode = await issueCode(ended.id);
    await service.db.query(`update sponsor_programs set starts_at = now() - interval '2 days', ends_at = now() - interval '1 second' where id = ?`, [ended.id]);
    expectError(await redeem(user, endedCode), 409, 'CONFLICT');
  });

  it('Enrollment redeem needs an organization admin with write scope, restricted to its organization', async () => {
    const program = await newProgram();
    const user = await signedInOwner(service, 'scoped');
    const code = await issueCode(program.id);
    const readOnly = await apiToken(service, user, ['read']);
    expectError(await call('POST', '/v1/sponsors/redeem', { token: readOnly, body: { org_id: user.org_id, code } }), 403, 'FORBIDDEN');
    const other = await signedInOwner(service, 'other-org');
    const token = await apiToken(service, user, ['write']);
    expectError(await call('POST', '/v1/sponsors/redeem', { token, body: { org_id: other.org_id, code } }), 404, 'NOT_FOUND');
    expect((await call('POST', '/v1/sponsors/redeem', { token, body: { org_id: user.org_id, code } })).status).toBe(201);
  });

  it('Enrollment pending → active by members/decide approve, issuing no credits; refused 409 once the program is closed', async () => {
    const program = await newProgram({ requires_approval: true, fund: 1000 });
    const user = await member(program.id);
    const before = await service.db.transaction((tx) => ledgerTotals(tx));
    const decided = await call('POST', `/v1/sponsors/programs/${program.id}/members/decide`, {
      token: admin.session,
      body: { org_id: user.org_id, approve: true, note: 'ok' },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ org_id: user.org_id, status: 'active', note: 'ok' });
    expect(await service.db.transaction((tx) => ledgerTotals(tx))).toEqual(before);
    expectError(
      await call('POST', `/v1/sponsors/programs/${program.id}/members/decide`, { token: admin.session, body: { org_id: user.org_id, approve: true } }),
      409,
      'CONFLICT',
    );

    const later = await newProgram({ requires_approval: true });
    const waiting = await member(later.id);
    await status(later.id, 'closed');
    expectError(
      await call('POST', `/v1/sponsors/programs/${later.id}/members/decide`, { token: admin.session, body: { org_id: waiting.org_id, approve: true } }),
      409,
      'CONFLICT',
    );
  });

  it('Enrollment pending → declined by members/decide approve false, final, freeing its place and blocking a second redemption', async () => {
    const program = await newProgram({ requires_approval: true, max_recipients: 1, fund: 100 });
    const code = await issueCode(program.id);
    const user = await member(program.id, code);
    expectError(await redeem(await signedInOwner(service, 'queued'), code), 422, 'VALIDATION_FAILED');
    const declined = await call('POST', `/v1/sponsors/programs/${program.id}/members/decide`, {
      token: admin.session,
      body: { org_id: user.org_id, approve: false, note: 'not affiliated' },
    });
    expect(declined.body).toMatchObject({ status: 'declined', note: 'not affiliated' });
    expectError(await allocate(program.id, user.org_id, 1), 409, 'CONFLICT');
    expectError(await redeem(user, code), 409, 'CONFLICT');
    expect((await redeem(await signedInOwner(service, 'next'), code)).status).toBe(201);
    expectError(
      await call('POST', `/v1/sponsors/programs/${program.id}/members/decide`, {
        token: admin.session,
        body: { org_id: 'org_0000000000000000', approve: true },
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('Allocation creates a ledger transaction and returns its id', async () => {
    const program = await newProgram({ fund: 300, per_recipient_cap: 200 });
    const user = await member(program.id);
    const response = await allocate(program.id, user.org_id, 150);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ transaction_id: expect.stringMatching(/^txn_/), credits: 150, credits_allocated_to_recipient: 150 });
    const ledger = await http(service, 'GET', `/v1/orgs/${user.org_id}/credits`, { token: user.session });
    expect(ledger.body.available_credits).toBe(150);
  });

  it('Allocation refusals: pending member 409, cap 422, pool 409 QUOTA_EXCEEDED, draft, scheduled, closed or ended program 409', async () => {
    const program = await newProgram({ fund: 100, per_recipient_cap: 60, requires_approval: true });
    const pending = await member(program.id);
    expectError(await allocate(program.id, pending.org_id, 10), 409, 'CONFLICT');
    await call('POST', `/v1/sponsors/programs/${program.id}/members/decide`, { token: admin.session, body: { org_id: pending.org_id, approve: true } });
    expectError(await allocate(program.id, pending.org_id, 61), 422, 'VALIDATION_FAILED');
    expect((await allocate(program.id, pending.org_id, 60)).status).toBe(201);
    expectError(await allocate(program.id, pending.org_id, 1), 422, 'VALIDATION_FAILED');
    const second = await member(program.id);
    await call('POST', `/v1/sponsors/programs/${program.id}/members/decide`, { token: admin.session, body: { org_id: second.org_id, approve: true } });
    expectError(await allocate(program.id, second.org_id, 41), 409, 'QUOTA_EXCEEDED');
    expectError(await allocate(program.id, 'org_0000000000000000', 1), 404, 'NOT_FOUND');

    const draft = await newProgram({ activate: false, fund: 10 });
    expectError(await allocate(draft.id, second.org_id, 1), 404, 'NOT_FOUND');
    const scheduled = await newProgram({ starts_at: at(2), fund: 10 });
    // enrolled while open, then moved back before its start: allocation waits for the start
    await service.db.query(`update sponsor_programs set starts_at = now() where id = ?`, [scheduled.id]);
    const early = await member(scheduled.id);
    await service.db.query(`update sponsor_programs set starts_at = now() + interval '2 days' where id = ?`, [scheduled.id]);
    expectError(await allocate(scheduled.id, early.org_id, 1), 409, 'CONFLICT');
    await service.db.query(`update sponsor_programs set starts_at = now() - interval '2 days', ends_at = now() - interval '1 second' where id = ?`, [
      scheduled.id,
    ]);
    expectError(await allocate(scheduled.id, early.org_id, 1), 409, 'CONFLICT');
    await status(program.id, 'closed');
    expectError(await allocate(program.id, second.org_id, 1), 409, 'CONFLICT');
  });
});

describe('the report', () => {
  it('is suppressed with 4 active recipients and a minimum cohort of 5, full with 5, and refuses any query parameter', async () => {
    const program = await newProgram({ report_min_cohort: 5, fund: 1000 });
    const code = await issueCode(program.id);
    const members: TestUser[] = [];
    for (let i = 0; i < 4; i++) members.push(await member(program.id, code));
    for (const user of members) await allocate(program.id, user.org_id, 50);
    const suppressed = await call('GET', `/v1/sponsors/programs/${program.id}/report`, { token: admin.session });
    expect(suppressed.status).toBe(200);
    expect(suppressed.body).toEqual({
      program_id: program.id,
      suppressed: true,
      reason: expect.any(String),
      report_min_cohort: 5,
      pool_balance: 800,
      credits_allocated: 200,
    });

    await member(program.id, code);
    const full = await call('GET', `/v1/sponsors/programs/${program.id}/report`, { token: admin.session });
    expect(full.body).toEqual({
      program_id: program.id,
      suppressed: false,
      report_min_cohort: 5,
      pool_balance: 800,
      credits_allocated: 200,
      active_recipients: 5,
      credits_used: 0,
      credits_reserved: 0,
      evaluations_funded: 0,
    });
    for (const query of ['org_id=x', 'limit=1', 'trace=1']) {
      expectError(await call('GET', `/v1/sponsors/programs/${program.id}/report?${query}`, { token: admin.session }), 422, 'VALIDATION_FAILED');
    }
  });
});

describe('concurrency', { timeout: 120_000 }, () => {
  it('makes one enrollment from 30 concurrent redemptions of one code by one organization', async () => {
    const program = await newProgram();
    const code = await issueCode(program.id);
    const user = await signedInOwner(service, 'racer');
    const results = await Promise.all(Array.from({ length: 30 }, () => redeem(user, code)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 409, 'CONFLICT');
    const rows = await service.db.query<{ n: number }>('select count(*)::int as n from sponsor_enrollments where program_id = ?', [program.id]);
    expect(rows[0]!.n).toBe(1);
    const uses = await service.db.query<{ uses: number }>('select uses from sponsor_codes where program_id = ?', [program.id]);
    expect(uses[0]!.uses).toBe(1);
  });

  it('replays 10 concurrent redemptions with one key as one', async () => {
    const program = await newProgram();
    const code = await issueCode(program.id);
    const user = await signedInOwner(service, 'same-key');
    const headers = key();
    const results = await Promise.all(Array.from({ length: 10 }, () => redeem(user, code, headers)));
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.enrollment_id));
    expect(ids.size).toBe(1);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 409, 'IDEMPOTENCY_KEY_IN_USE');
  });

  it('never lets concurrent redemptions exceed max_recipients', async () => {
    const program = await newProgram({ max_recipients: 3 });
    const code = await issueCode(program.id);
    const users = await Promise.all(Array.from({ length: 8 }, () => signedInOwner(service, 'crowd')));
    const results = await Promise.all(users.map((user) => redeem(user, code)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 422, 'VALIDATION_FAILED');
  });

  it('never lets concurrent allocations exceed the pool or the per-recipient cap', async () => {
    const program = await newProgram({ fund: 100, per_recipient_cap: 30 });
    const code = await issueCode(program.id);
    const members: TestUser[] = [];
    for (let i = 0; i < 5; i++) members.push(await member(program.id, code));
    const attempts = members.flatMap((user) => Array.from({ length: 4 }, () => allocate(program.id, user.org_id, 10)));
    const results = await Promise.all(attempts);
    const granted = results.filter((r) => r.status === 201);
    expect(granted).toHaveLength(10);
    for (const r of results.filter((r) => r.status !== 201)) expect(['VALIDATION_FAILED', 'QUOTA_EXCEEDED']).toContain(r.body.code);
    for (const user of members) {
      const sum = await service.db.query<{ n: number }>(
        `select coalesce(sum(amount), 0)::int as n from credit_transfers where kind = 'allocation' and program_id = ? and org_id = ?`,
        [program.id, user.org_id],
      );
      expect(sum[0]!.n).toBeLessThanOrEqual(30);
    }
    const report = await call('GET', `/v1/sponsors/programs/${program.id}/report`, { token: admin.session });
    expect(report.body).toMatchObject({ pool_balance: 0, credits_allocated: 100 });
  });
});

describe('secrecy of codes', () => {
  it('stores only digests and never shows a code in a response, a log line or a replay record', async () => {
    expect(issuedCodes.length).toBeGreaterThan(10);
    const forms = issuedCodes.flatMap((code) => [code, code.replace(/-/g, '')]);
    const stored = JSON.stringify(await service.db.query('select * from sponsor_codes'));
    const replays = JSON.stringify(await service.db.query('select * from idempotency_records'));
    const text = [JSON.stringify(responses), service.logs.join('\n'), stored, replays];
    for (const form of forms) for (const haystack of text) expect(haystack.includes(form)).toBe(false);
  });
});
