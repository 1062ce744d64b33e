// Quarantined sources at rest: their raw lines are sealed under the master key (never text in the database), and the
// maintenance workflow purges them after CRUCIBLE_QUARANTINE_RETENTION_DAYS, the same tick after tick.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quarantineBinding } from '../../store/intake/quarantine.ts';
import { openUnderMasterKey } from '../../store/providerKeys/crypto.ts';
import type { MaintenanceResult } from '../../workflows/maintenance.ts';
import { nhsNumberFile, textFile, VALID_NHS_NUMBER, type CorpusFile } from '../support/corpus.ts';
import { signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

const RETENTION_DAYS = 12;

async function extract(service: TestService, user: TestUser, files: CorpusFile[]): Promise<Array<{ id: string; name: string; status: string }>> {
  const form = new FormData();
  form.append('org_id', user.org_id);
  for (const file of files) {
    if (file.input.kind !== 'file') throw new Error('files only');
    form.append('files', new Blob([file.input.bytes as Uint8Array<ArrayBuffer>], { type: 'text/plain' }), file.input.filename);
  }
  const response = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${user.session}` }, body: form });
  expect(response.status).toBe(201);
  return ((await response.json()) as { sources: Array<{ id: string; name: string; status: string }> }).sources;
}

const bytes = (value: unknown) => Buffer.from(value as Uint8Array);

async function maintenance(service: TestService): Promise<MaintenanceResult> {
  return service.service.client.workflow.execute('maintenanceWorkflow', {
    taskQueue: service.task_queue,
    workflowId: `maintenance-quarantine-${randomBytes(4).toString('hex')}`,
    args: [{}],
  });
}

describe('quarantined sources at rest', () => {
  let service: TestService;
  let owner: TestUser;

  beforeAll(async () => {
    service = await startTestService({ env: { CRUCIBLE_QUARANTINE_RETENTION_DAYS: String(RETENTION_DAYS) } });
    owner = await signedInOwner(service, 'quarantine-owner');
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('keeps the raw lines only as ciphertext, bound to the source and opened only with the master key', async () => {
    const sources = await extract(service, owner, [nhsNumberFile(), textFile()]);
    const quarantined = sources.find((source) => source.name === 'audit.txt')!;
    expect(quarantined.status).toBe('excluded_for_privacy');
    const [source_row] = await service.db.query('select lines from intake_sources where id = ?', [quarantined.id]);
    expect(source_row!.lines).toBeNull();
    const [row] = await service.db.query('select org_id, ciphertext, nonce, auth_tag from intake_quarantine where source_id = ?', [quarantined.id]);
    expect(row!.org_id).toBe(owner.org_id);
    const sealed = { ciphertext: bytes(row!.ciphertext), nonce: bytes(row!.nonce), auth_tag: bytes(row!.auth_tag) };
    for (const form of [VALID_NHS_NUMBER, VALID_NHS_NUMBER.replace(/ /g, ''), 'Referral audit']) {
      expect(sealed.ciphertext.includes(Buffer.from(form))).toBe(false);
    }
    // Every column of the database, as text: the number is nowhere in the clear.
    const dumped = await service.db.query(
      `select row_to_json(q)::text as json from intake_quarantine q union all select row_to_json(s)::text from intake_sources s`,
    );
    expect(dumped.map((r) => r.json as string).join('\n')).not.toContain(VALID_NHS_NUMBER.replace(/ /g, ''));
    const opened = openUnderMasterKey(service.config.master_key!, quarantineBinding(owner.org_id, quarantined.id), sealed);
    expect(JSON.parse(opened!)).toEqual(['Referral audit, practice 4', `Patient NHS number ${VALID_NHS_NUMBER} was referred on the urgent pathway.`]);
    expect(openUnderMasterKey(service.config.master_key!, quarantineBinding(owner.org_id, sources.find((s) => s.name === 'brief.txt')!.id), sealed)).toBeNull();
    expect(openUnderMasterKey(randomBytes(32), quarantineBinding(owner.org_id, quarantined.id), sealed)).toBeNull();
    // A processed source keeps its lines (the drafting reads them) and has no quarantine row.
    const processed = sources.find((source) => source.name === 'brief.txt')!;
    expect(await service.db.query('select 1 from intake_quarantine where source_id = ?', [processed.id])).toEqual([]);
  });

  it('purges the sealed lines older than the retention in the maintenance workflow, and a second tick purges nothing more', async () => {
    const sources = await extract(service, owner, [nhsNumberFile(), nhsNumberFile(), nhsNumberFile()]);
    const [old, edge, fresh] = sources.map((source) => source.id);
    await service.db.query(`update intake_quarantine set created_at = now() - make_interval(days => ?) where source_id = ?`, [RETENTION_DAYS + 1, old]);
    await service.db.query(`update intake_quarantine set created_at = now() - make_interval(days => ?, hours => 1) where source_id = ?`, [
      RETENTION_DAYS,
      edge,
    ]);
    await service.db.query(`update intake_quarantine set created_at = now() - make_interval(days => ?) where source_id = ?`, [RETENTION_DAYS - 1, fresh]);
    const first = await maintenance(service);
    expect(first.quarantined_sources_purged).toBe(2);
    const left = await service.db.query(`select source_id from intake_quarantine where source_id in (?, ?, ?)`, [old, edge, fresh]);
    expect(left.map((row) => row.source_id)).toEqual([fresh]);
    // The source itself stays listed with its masked findings; only its raw lines are gone.
    const [kept] = await service.db.query('select status, findings from intake_sources where id = ?', [old]);
    expect(kept!.status).toBe('excluded_for_privacy');
    const second = await maintenance(service);
    expect(second.quarantined_sources_purged).toBe(0);
    expect(await service.db.query(`select source_id from intake_quarantine where source_id = ?`, [fresh])).toHaveLength(1);
  });
});
