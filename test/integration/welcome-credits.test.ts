// A new organization can start: the first start's welcome grant (once, in the ledger with its reason, none by default
// on PostgreSQL) and the way to add credits every "not enough credits" answer names on this deployment.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.ts';
import { firstStart, WELCOME_CREDITS_REASON } from '../../runtime/firstStart.ts';
import { balances, listLedger } from '../../store/credits/ledger.ts';
import { openDatabase } from '../../store/db.ts';
import { freshPostgresDatabase, http, signedInMember, signedInOwner, startTestService, type TestService } from '../support/harness.ts';

describe('the welcome grant of the first start', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('grants the first organization its welcome credits once: a restart on the same data directory grants nothing more', async () => {
    const data_dir = mkdtempSync(join(tmpdir(), 'crucible-welcome-'));
    dirs.push(data_dir);
    const config = loadConfig({ CRUCIBLE_DATA_DIR: data_dir });
    const open = async () => {
      const db = await openDatabase({ database_url: null, pglite_dir: join(data_dir, 'pg') });
      await db.migrate();
      return db;
    };
    const db = await open();
    const first = await firstStart(db, config);
    expect(first).toMatchObject({ email: 'admin@localhost.localdomain', welcome_credits: 500 });
    expect(first?.password).toEqual(expect.any(String));
    await db.close();

    const again = await open(); // the restart
    expect(await firstStart(again, config)).toBeNull();
    const org_id = first!.org_id;
    const ledger = await listLedger(again, org_id, 0, 10);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ id: first!.welcome_transaction_id, kind: 'grant', credits: 500, reason: WELCOME_CREDITS_REASON, status: 'posted' });
    expect((await balances(again, org_id)).available_credits).toBe(500);
    await again.close();
  });

  it('creates nothing when the grant cannot be made: the organization and its grant are one step', async () => {
    const db = await openDatabase({ database_url: null, pglite_dir: 'memory://' });
    await db.migrate();
    // an amount the ledger refuses stands for a crash between creating the organization and granting
    await expect(firstStart(db, { welcome_credits: 9007199254740992 })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await db.one<{ n: number }>('select count(*)::int as n from users')).toEqual({ n: 0 });
    expect(await db.one<{ n: number }>('select count(*)::int as n from organizations')).toEqual({ n: 0 });
    const started = await firstStart(db, { welcome_credits: 40 });
    expect((await balances(db, started!.org_id)).available_credits).toBe(40);
    await db.close();
  });

  it('grants nothing by default with DATABASE_URL set (PostgreSQL)', async () => {
    const fresh = await freshPostgresDatabase(); // a real PostgreSQL database when the suite runs with DATABASE_URL
    const database_url = fresh?.url ?? 'postgres://127.0.0.1:5432/crucible';
    try {
      const db = await openDatabase({ database_url: fresh ? database_url : null, pglite_dir: 'memory://' });
      await db.migrate();
      const started = await firstStart(db, loadConfig({ DATABASE_URL: database_url }));
      expect(started).toMatchObject({ welcome_credits: 0, welcome_transaction_id: null });
      expect(await listLedger(db, started!.org_id, 0, 10)).toEqual([]);
      expect((await balances(db, started!.org_id)).available_credits).toBe(0);
      await db.close();
    } finally {
      await fresh?.drop();
    }
  });
});

describe('"not enough credits" names the way on this deployment', () => {
  let local: TestService;
  let billing: TestService;
  beforeAll(async () => {
    [local, billing] = await Promise.all([startTestService({ mode: 'api' }), startTestService({ mode: 'api', env: { SERVICE_BILLING_ENABLED: 'true' } })]);
  });
  afterAll(async () => {
    await Promise.all([local?.stop(), billing?.stop()]);
  });

  /** Asks a new organization with no credits to draft an intake: 402 before anything starts. */
  async function draftWithoutCredits(service: TestService, token: string, org_id: string) {
    const project = await http(service, 'POST', '/v1/projects', { token, body: { title: 'Falls clinic follow-up', org_id } });
    const extracted = await http(service, 'POST', '/v1/intakes/extract', {
      token,
      body: { project_id: project.body.id, text: 'Patients wait twelve weeks for a falls clinic appointment.' },
    });
    const source_ids = extracted.body.sources.map((s: { id: string }) => s.id);
    return http(service, 'POST', `/v1/projects/${project.body.id}/intakes/parse`, { token, body: { source_ids } });
  }

  it('gives the owner of a local service the operator command, and a member the person who runs it', async () => {
    const owner = await signedInOwner(local);
    const refused = await draftWithoutCredits(local, owner.session, owner.org_id);
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('INSUFFICIENT_CREDITS');
    const embedded = local.config.database_url === null;
    const command = `npm run -s operator -- grant-credits --org ${owner.org_id} --credits 500 --reason "more credits"`;
    if (embedded) {
      expect(refused.body.message).toMatch(/^Not enough credits: your organization has 0 available and this needs \d+\. This service runs on your computer/);
      expect(refused.body.message).toContain(command);
      expect(refused.body.details.add_credits).toMatchObject({ way: 'operator_command', command });
    } else {
      expect(refused.body.details.add_credits).toMatchObject({ way: 'ask_operator', command: null });
    }
    const credits = await http(local, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: owner.session });
    expect(credits.body.add_credits).toEqual(refused.body.details.add_credits);

    const member = await signedInMember(local, owner.org_id, 'member');
    const asked = await draftWithoutCredits(local, member.session, owner.org_id);
    expect(asked.status).toBe(402);
    expect(asked.body.message).toMatch(/this needs \d+\. Ask the person who runs this service to add credits\.$/);
    expect(asked.body.details.add_credits).toEqual({ way: 'ask_operator', sentence: 'Ask the person who runs this service to add credits.', command: null });
  });

  it('names the Billing page when billing is on', async () => {
    const owner = await signedInOwner(billing);
    const refused = await draftWithoutCredits(billing, owner.session, owner.org_id);
    expect(refused.status).toBe(402);
    expect(refused.body.message).toMatch(/this needs \d+\. Buy credits on the Billing page\.$/);
    const member = await signedInMember(billing, owner.org_id, 'member');
    const credits = await http(billing, 'GET', `/v1/orgs/${owner.org_id}/credits`, { token: member.session });
    expect(credits.body.add_credits).toEqual({
      way: 'billing',
      sentence: 'Ask an owner or admin of your organization to buy credits on the Billing page.',
      command: null,
    });
  });
});
