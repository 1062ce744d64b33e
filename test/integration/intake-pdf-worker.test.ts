// PDFs are read on a worker, never in the API process (docs/deploy.md "Where the work runs"): an API process with no
// worker on its queue answers a PDF request 503 after CRUCIBLE_PDF_READ_WAIT_SECONDS and keeps nothing staged, while it
// still reads pasted text itself; with a worker the request is stored as before, the staged row is gone, and the read's
// workflow history holds ids only: none of the PDF's text, even with its payloads decrypted. On PostgreSQL, an API
// process and a worker of its own on the same database do the same.
import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFailureBoundary } from '../../activities/index.ts';
import { intakeReadActivities } from '../../activities/intakeRead.ts';
import { newId } from '../../domain/ids.ts';
import { EncryptionCodec } from '../../integrations/temporal/codec.ts';
import { stageSources, STAGED_READ_ABANDONED_SECONDS } from '../../store/intake/staged.ts';
import { buildPdf } from '../support/corpus.ts';
import { pdfWithBrokenPageNumbers } from '../support/pdfDamage.ts';
import { eventually, http, signedInOwner, startTestService, startWorkerOf, type TestService, type TestUser } from '../support/harness.ts';

const WAIT_SECONDS = 3;
const PDF_LINES = ['Quokka referral pathway: triage within nine days', 'Pilot clinics report the wait fell from forty to twelve days.'];

type Part = { text: string } | { filename: string; content_type: string; bytes: Uint8Array };

async function extract(service: TestService, owner: TestUser, parts: Part[]) {
  const form = new FormData();
  form.append('org_id', owner.org_id);
  for (const part of parts) {
    if ('text' in part) form.append('text', part.text);
    else form.append('files', new Blob([part.bytes as Uint8Array<ArrayBuffer>], { type: part.content_type }), part.filename);
  }
  const response = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${owner.session}` }, body: form });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function count(service: TestService, table: 'intake_staged_reads' | 'intake_sources', org_id: string): Promise<number> {
  const row = await service.db.one<{ n: number | string }>(`select count(*) as n from ${table} where org_id = ?`, [org_id]);
  return Number(row!.n);
}

const asInput = (part: Part) => ('text' in part ? { kind: 'text' as const, text: part.text } : { kind: 'file' as const, ...part });

const pdf = async (): Promise<Part> => ({
  filename: 'pathway.pdf',
  content_type: 'application/pdf',
  bytes: await buildPdf([{ kind: 'text', lines: PDF_LINES }]),
});

/** Stages one PDF as the API would, under `id`; `abandoned`: as if its API process died over an hour ago. */
async function stagePdf(service: TestService, owner: TestUser, id: string, abandoned: boolean): Promise<void> {
  await stageSources(service.db, {
    id,
    master_key: service.config.master_key,
    org_id: owner.org_id,
    project_id: null,
    created_by: owner.user_id,
    inputs: [await pdf()].map(asInput),
  });
  if (abandoned) {
    await service.db.query('update intake_staged_reads set created_at = now() - make_interval(secs => ?) where id = ?', [
      STAGED_READ_ABANDONED_SECONDS + 60,
      id,
    ]);
  }
}

describe('an API process with no worker reading PDFs', () => {
  let service: TestService;
  let owner: TestUser;
  beforeAll(async () => {
    // Its own task queue, which nobody polls: no worker will ever take the read.
    service = await startTestService({ mode: 'api', env: { CRUCIBLE_PDF_READ_WAIT_SECONDS: String(WAIT_SECONDS) } });
    owner = await signedInOwner(service, 'pdf-no-worker');
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('answers a PDF request 503 (the document reader is unavailable) and keeps nothing staged or stored', async () => {
    const started = Date.now();
    const response = await extract(service, owner, [{ text: 'Problem: long waits.' }, await pdf()]);
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('TEMPORARILY_UNAVAILABLE');
    expect(response.body.message).toMatch(/document reader is unavailable/);
    expect(response.headers.get('retry-after')).toBeTruthy();
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_SECONDS * 1000);
    expect(await count(service, 'intake_staged_reads', owner.org_id)).toBe(0);
    expect(await count(service, 'intake_sources', owner.org_id)).toBe(0);
  });

  it('still reads and screens pasted text and text files itself', async () => {
    const response = await extract(service, owner, [
      { text: 'Problem: long waits.' },
      { filename: 'notes.md', content_type: 'text/markdown', bytes: Buffer.from('# Notes\nStage: idea.') },
    ]);
    expect(response.status).toBe(201);
    expect(response.body.sources.map((source: any) => source.status)).toEqual(['processed', 'processed']);
  });
});

/** Every payload in a history (objects with metadata and data), search attributes left out. */
function payloadsOf(value: unknown, out: Payload[] = []): Payload[] {
  if (Array.isArray(value)) for (const item of value) payloadsOf(item, out);
  else if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    if ('metadata' in value && 'data' in value) out.push(value as Payload);
    else for (const [key, item] of Object.entries(value)) if (key !== 'searchAttributes') payloadsOf(item, out);
  }
  return out;
}

describe('a PDF request read by a worker', () => {
  let service: TestService;
  let owner: TestUser;
  beforeAll(async () => {
    service = await startTestService();
    owner = await signedInOwner(service, 'pdf-worker');
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('stores the sources in request order, answers them as before and leaves no staged row', async () => {
    const damaged = { filename: 'damaged.pdf', content_type: 'application/pdf', bytes: await pdfWithBrokenPageNumbers() };
    const response = await extract(service, owner, [{ text: 'Problem: long waits.' }, await pdf(), damaged]);
    expect(response.status).toBe(201);
    expect(response.body.org_id).toBe(owner.org_id);
    expect(response.body.sources.map((source: any) => [source.name, source.status])).toEqual([
      ['pasted text 1', 'processed'],
      ['pathway.pdf', 'processed'],
      ['damaged.pdf', 'error'],
    ]);
    expect(response.body.sources[1]).toMatchObject({ kind: 'pdf', line_count: 2, pdf: { page_count: 1, pages_read: [1] } });
    expect(response.body.sources[2].reason).toBe('the PDF could not be read: a page failed to parse');
    for (const source of response.body.sources) expect(JSON.stringify(source)).not.toContain('Quokka');
    expect(await count(service, 'intake_staged_reads', owner.org_id)).toBe(0);
    const stored = await http(service, 'GET', `/v1/intake-sources/${response.body.sources[1].id}`, { token: owner.session });
    expect(stored.status).toBe(200);
  });

  it("keeps the PDF's text out of the read's workflow history, its payloads decrypted", async () => {
    const response = await extract(service, owner, [await pdf()]);
    expect(response.status).toBe(201);
    const query = `CrucibleOrgId = '${owner.org_id}' AND CrucibleResourceKind = 'intake_read'`;
    const ids = await eventually(
      async () => {
        const found: string[] = [];
        for await (const execution of service.service.client.workflow.list({ query })) found.push(execution.workflowId);
        return found.length >= 2 && found;
      },
      30_000,
      'the reads to be listed',
    );
    for (const workflow_id of ids) {
      const history = await service.service.client.workflow.getHandle(workflow_id).fetchHistory();
      expect(history.events?.some((event) => event.activityTaskCompletedEventAttributes)).toBe(true);
      const payloads = await new EncryptionCodec(service.config.master_key!).decode(payloadsOf(history.events));
      expect(payloads.length).toBeGreaterThan(0);
      const plaintext = payloads.map((payload) => Buffer.from(payload.data ?? new Uint8Array()).toString('utf8')).join('\n');
      expect(plaintext).toContain('src_');
      for (const line of PDF_LINES) for (const word of line.split(/\W+/).filter((w) => w.length > 5)) expect(plaintext).not.toContain(word);
      expect(plaintext).not.toContain('%PDF');
    }
  });

  it('has the maintenance workflow delete a staged request nobody will read any more, and keep a recent one', async () => {
    await stagePdf(service, owner, 'ext_leftover', true);
    await stagePdf(service, owner, 'ext_recent', false);
    const result = await service.service.client.workflow.execute('maintenanceWorkflow', {
      taskQueue: service.task_queue,
      workflowId: `maintenance-staged-${Date.now()}`,
      args: [{}],
    });
    expect(result.staged_reads_purged).toBe(1);
    expect((await service.db.query('select id from intake_staged_reads where org_id = ?', [owner.org_id])).map((row) => (row as { id: string }).id)).toEqual([
      'ext_recent',
    ]);
    await service.db.query(`delete from intake_staged_reads where id = 'ext_recent'`);
  });

  it('reads a staged request once: a retry returns the same source ids and stores nothing twice', async () => {
    const deps = service.service.deps!;
    const read = withFailureBoundary(intakeReadActivities({ config: deps.config, db: service.db, logger: deps.logger, jobs: null })).readStagedIntakeSources;
    const input = { staged_id: newId('ext'), source_ids: [newId('src'), newId('src')] };
    await stageSources(service.db, {
      id: input.staged_id,
      master_key: service.config.master_key,
      org_id: owner.org_id,
      project_id: null,
      created_by: owner.user_id,
      inputs: [{ text: 'Problem: long waits.' }, await pdf()].map(asInput),
    });
    const before = await count(service, 'intake_sources', owner.org_id);
    const first = await new MockActivityEnvironment().run(read, input);
    const again = await new MockActivityEnvironment().run(read, input);
    expect(first).toEqual({ source_ids: input.source_ids });
    expect(again).toEqual(first);
    expect(await count(service, 'intake_sources', owner.org_id)).toBe(before + 2);
    expect(await count(service, 'intake_staged_reads', owner.org_id)).toBe(0);
    // A request the API gave up (its row deleted, nothing stored) is refused, typed, and stores nothing.
    const given_up = { staged_id: newId('ext'), source_ids: [newId('src')] };
    await expect(new MockActivityEnvironment().run(read, given_up)).rejects.toMatchObject({ type: 'TEMPORARILY_UNAVAILABLE', nonRetryable: true });
    expect(await count(service, 'intake_sources', owner.org_id)).toBe(before + 2);
  });

  it('reads a request staged just before a master key rotation on a worker that holds the old key as previous', async () => {
    const deps = service.service.deps!;
    const old_master = service.config.master_key!;
    const new_master = randomBytes(32);
    const readWith = (master_key: Buffer, master_keys_previous: Buffer[]) =>
      withFailureBoundary(
        intakeReadActivities({ config: { ...deps.config, master_key, master_keys_previous }, db: service.db, logger: deps.logger, jobs: null }),
      ).readStagedIntakeSources;
    const input = { staged_id: newId('ext'), source_ids: [newId('src')] };
    await stageSources(service.db, {
      id: input.staged_id,
      master_key: old_master,
      org_id: owner.org_id,
      project_id: null,
      created_by: owner.user_id,
      inputs: [{ text: 'Problem: long waits.' }].map(asInput),
    });
    // The new key alone cannot open it (the message names both settings); with the old one as previous it is read.
    await expect(new MockActivityEnvironment().run(readWith(new_master, []), input)).rejects.toThrow(/SERVICE_MASTER_KEY_PREVIOUS/);
    expect(await new MockActivityEnvironment().run(readWith(new_master, [old_master]), input)).toEqual({ source_ids: input.source_ids });
    expect(await count(service, 'intake_staged_reads', owner.org_id)).toBe(0);
  });
});

// Two processes' roles on one PostgreSQL database: an API process that reads no PDF and a worker that does.
describe.runIf(process.env.DATABASE_URL)('an API process and a worker of its queue (PostgreSQL)', () => {
  let api: TestService;
  let worker: Awaited<ReturnType<typeof startWorkerOf>>;
  let owner: TestUser;
  beforeAll(async () => {
    api = await startTestService({ mode: 'api' });
    worker = await startWorkerOf(api);
    owner = await signedInOwner(api, 'pdf-split');
  });
  afterAll(async () => {
    await worker?.stopWorker();
    await api?.stop();
  });

  it('has the worker read the PDF and the API answer the stored sources, nothing left staged', async () => {
    const response = await extract(api, owner, [await pdf(), { text: 'Problem: long waits.' }]);
    expect(response.status).toBe(201);
    expect(response.body.sources.map((source: any) => [source.name, source.status])).toEqual([
      ['pathway.pdf', 'processed'],
      ['pasted text 2', 'processed'],
    ]);
    expect(await count(api, 'intake_staged_reads', owner.org_id)).toBe(0);
  });
});
