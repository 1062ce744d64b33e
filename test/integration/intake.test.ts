// Intake over HTTP on the real service: extraction of the built corpus, source isolation, limits, confirmation with
// citation checks, and gapless revision numbering under concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtractionInput } from '../../compute/extraction.ts';
import { schemaErrors } from '../../api/http/request.ts';
import { DroppedCitation, DroppedClaim } from '../../domain/contracts/intake.ts';
import type { IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { BYTES_PER_REQUEST_MAX, BYTES_PER_SOURCE_MAX, SOURCES_PER_REQUEST_MAX } from '../../domain/intake/sources.ts';
import { buildCorpus, type CorpusFile, PROJECT_BRIEF_TXT, textFile } from '../support/corpus.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';
import { pdfWithBrokenPageNumbers } from '../support/pdfDamage.ts';
import { apiToken, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

let service: TestService;
let owner: TestUser;
let stranger: TestUser;
let project_id: string;
let corpus: CorpusFile[];

/** POSTs multipart/form-data built by the platform's FormData, as a browser or SDK would send it. */
async function postMultipart(path: string, token: string, parts: Array<ExtractionInput | { field: string; value: string }>) {
  const form = new FormData();
  for (const part of parts) {
    if ('field' in part) form.append(part.field, part.value);
    else if (part.kind === 'text') form.append('text', part.text);
    else form.append('files', new Blob([part.bytes as Uint8Array<ArrayBuffer>], { type: part.content_type ?? 'application/octet-stream' }), part.filename);
  }
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: (await response.json()) as any };
}

async function newProject(user: TestUser, title = 'FastTrack Referral'): Promise<string> {
  const created = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title, org_id: user.org_id } });
  expect(created.status).toBe(201);
  return created.body.id;
}

function statement(text: string, citations: IntakeSpec['claims'][number]['citations'] = []) {
  return { text, provenance: 'user_declared' as const, citations };
}

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'intake-owner');
  stranger = await signedInOwner(service, 'intake-stranger');
  project_id = await newProject(owner);
  corpus = await buildCorpus();
});
afterAll(async () => {
  await service?.stop();
});

describe('POST /v1/intakes/extract (multipart)', () => {
  let sources: any[];
  let response_text: string;

  beforeAll(async () => {
    const response = await postMultipart('/v1/intakes/extract', owner.session, [
      { field: 'project_id', value: project_id },
      ...corpus.map((file) => file.input),
    ]);
    expect(response.status).toBe(201);
    sources = response.body.sources;
    response_text = JSON.stringify(response.body);
  });

  it('gives every corpus file its expected status and finding kinds, in upload order', () => {
    expect(sources).toHaveLength(corpus.length);
    const seen = sources.map((source) => ({ name: source.name, status: source.status, kinds: [...new Set(source.findings.map((f: any) => f.kind))].sort() }));
    const expected = corpus.map((file) => ({ name: file.name, status: file.expected_status, kinds: file.expected_finding_kinds }));
    expect(seen).toEqual(expected);
    for (const source of sources) {
      expect(source.id).toMatch(/^src_/);
      expect(source.project_id).toBe(project_id);
      expect(source.org_id).toBe(owner.org_id);
    }
  });

  it('reports size and line count, and for PDFs which pages were read', () => {
    const by_name = new Map(sources.map((source) => [source.name, source]));
    const brief = by_name.get('brief.txt');
    expect(brief.size_bytes).toBe(Buffer.byteLength(PROJECT_BRIEF_TXT));
    expect(brief.line_count).toBe(PROJECT_BRIEF_TXT.split('\n').length);
    const mixed = by_name.get('mixed.pdf');
    expect(mixed.pdf.pages_read).toEqual([1, 3]);
    expect(mixed.pdf.pages_without_text).toEqual([2]);
    expect(mixed.conversion_prompt).toContain('pages 2');
    const scanned = by_name.get('scanned.pdf');
    expect(scanned.pdf.pages_without_text).toEqual([1, 2]);
    expect(scanned.conversion_prompt).toEqual(expect.any(String));
    expect(by_name.get('locked.pdf').reason).toMatch(/encrypted/);
    expect(by_name.get('photo.pdf').reason).toMatch(/PNG/);
    expect(by_name.get('broken.json').reason).toMatch(/line 3/);
  });

  it('shows findings with masked values and line numbers', () => {
    const audit = sources.find((source) => source.name === 'audit.txt');
    expect(audit.findings).toEqual([expect.objectContaining({ kind: 'nhs_number', category: 'patient_identifier', line: 2, masked: '943 *** **19' })]);
  });

  it('never puts a raw secret or identifier in a response, a source read or a log line', async () => {
    const raw_values = corpus.flatMap((file) => file.raw_values);
    expect(raw_values.length).toBeGreaterThan(10);
    const reads: string[] = [];
    for (const source of sources) {
      reads.push(JSON.stringify((await http(service, 'GET', `/v1/intake-sources/${source.id}`, { token: owner.session })).body));
    }
    reads.push(JSON.stringify((await http(service, 'GET', `/v1/intake-sources?org_id=${owner.org_id}&limit=200`, { token: owner.session })).body));
    const logs = service.logs.join('\n');
    for (const value of raw_values) {
      expect(response_text).not.toContain(value);
      expect(reads.join('\n')).not.toContain(value);
      expect(logs).not.toContain(value);
    }
  });

  it("returns a processed source's numbered text and refuses a quarantined one's", async () => {
    const brief = sources.find((source) => source.name === 'brief.txt');
    const text = await http(service, 'GET', `/v1/intake-sources/${brief.id}/text`, { token: owner.session });
    expect(text.status).toBe(200);
    expect(text.body.numbered_text.split('\n')[0]).toBe('1| Project brief: FastTrack Referral');
    const quarantined = sources.find((source) => source.name === 'deploy.txt');
    const refused = await http(service, 'GET', `/v1/intake-sources/${quarantined.id}/text`, { token: owner.session });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CONFLICT');
  });

  it('answers another organization with 404 on every source', async () => {
    for (const source of sources.slice(0, 3)) {
      const read = await http(service, 'GET', `/v1/intake-sources/${source.id}`, { token: stranger.session });
      expect(read.status).toBe(404);
      expect((await http(service, 'GET', `/v1/intake-sources/${source.id}/text`, { token: stranger.session })).status).toBe(404);
    }
    const foreign_parse = await http(service, 'POST', `/v1/projects/${await newProject(stranger)}/intakes/parse`, {
      token: stranger.session,
      body: { source_ids: [sources[0].id] },
    });
    expect(foreign_parse.status).toBe(404);
  });
});

describe('POST /v1/intakes/extract with a damaged PDF', () => {
  it("answers 201 with the source in error and the reader's reason, not a 500, and the next upload is read", async () => {
    const damaged: ExtractionInput = { kind: 'file', filename: 'damaged.pdf', content_type: 'application/pdf', bytes: await pdfWithBrokenPageNumbers() };
    const response = await postMultipart('/v1/intakes/extract', owner.session, [{ field: 'project_id', value: project_id }, damaged]);
    expect(response.status).toBe(201);
    expect(response.body.sources).toEqual([
      expect.objectContaining({ name: 'damaged.pdf', status: 'error', reason: 'the PDF could not be read: a page failed to parse', line_count: 0 }),
    ]);
    const pilot = corpus.find((file) => file.name === 'pilot.pdf')!;
    const next = await postMultipart('/v1/intakes/extract', owner.session, [{ field: 'project_id', value: project_id }, pilot.input]);
    expect(next.status).toBe(201);
    expect(next.body.sources.map((source: any) => [source.name, source.status])).toEqual([['pilot.pdf', 'processed']]);
  });
});

describe('POST /v1/intakes/extract (JSON and ownership)', () => {
  it('accepts pasted text as JSON for an organization, with no project yet', async () => {
    const response = await http(service, 'POST', '/v1/intakes/extract', {
      token: owner.session,
      body: { text: ['One line of pasted text.', 'Second source.'], org_id: owner.org_id },
    });
    expect(response.status).toBe(201);
    expect(response.body.project_id).toBeNull();
    expect(response.body.sources.map((source: any) => [source.status, source.line_count])).toEqual([
      ['processed', 1],
      ['processed', 1],
    ]);
  });

  it('refuses a request that does not say whose material it is', async () => {
    const response = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { text: 'x' } });
    expect(response.status).toBe(422);
    expect(response.body.details[0].path).toBe('/org_id');
  });

  it("answers 404 for another organization's project or organization", async () => {
    const into_project = await postMultipart('/v1/intakes/extract', stranger.session, [{ field: 'project_id', value: project_id }, textFile().input]);
    expect(into_project.status).toBe(404);
    const into_org = await http(service, 'POST', '/v1/intakes/extract', { token: stranger.session, body: { text: 'x', org_id: owner.org_id } });
    expect(into_org.status).toBe(404);
  });

  it('needs the write scope', async () => {
    const read_only = await apiToken(service, owner, ['read']);
    const response = await http(service, 'POST', '/v1/intakes/extract', { token: read_only, body: { text: 'x', org_id: owner.org_id } });
    expect(response.status).toBe(403);
  });
});

describe('extraction limits', () => {
  it('refuses more than SOURCES_PER_REQUEST_MAX files with 422 naming the limit', async () => {
    const files = Array.from(
      { length: SOURCES_PER_REQUEST_MAX + 1 },
      (_, index): ExtractionInput => ({
        kind: 'file',
        filename: `note-${index}.txt`,
        content_type: 'text/plain',
        bytes: new TextEncoder().encode(`note ${index}`),
      }),
    );
    const response = await postMultipart('/v1/intakes/extract', owner.session, [{ field: 'org_id', value: owner.org_id }, ...files]);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain('SOURCES_PER_REQUEST_MAX');
    expect(response.body.details[0]).toMatchObject({ limit: 'SOURCES_PER_REQUEST_MAX', limit_value: SOURCES_PER_REQUEST_MAX });
  });

  it('refuses a file above BYTES_PER_SOURCE_MAX with 413 naming the limit, while streaming', async () => {
    const big: ExtractionInput = { kind: 'file', filename: 'big.txt', content_type: 'text/plain', bytes: new Uint8Array(BYTES_PER_SOURCE_MAX + 1).fill(0x61) };
    const response = await postMultipart('/v1/intakes/extract', owner.session, [{ field: 'org_id', value: owner.org_id }, big]);
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(response.body.message).toContain('BYTES_PER_SOURCE_MAX');
  });

  it('refuses a text field above BYTES_PER_SOURCE_MAX with 413 naming the limit', async () => {
    const response = await postMultipart('/v1/intakes/extract', owner.session, [
      { field: 'org_id', value: owner.org_id },
      { kind: 'text', text: 'b'.repeat(BYTES_PER_SOURCE_MAX + 1) },
    ]);
    expect(response.status).toBe(413);
    expect(response.body.message).toContain('BYTES_PER_SOURCE_MAX');
  });

  it('refuses files summing above BYTES_PER_REQUEST_MAX with 413 naming the limit', async () => {
    const each = BYTES_PER_SOURCE_MAX - 1024;
    const count = Math.floor(BYTES_PER_REQUEST_MAX / each) + 1;
    const files = Array.from(
      { length: count },
      (_, index): ExtractionInput => ({
        kind: 'file',
        filename: `part-${index}.txt`,
        content_type: 'text/plain',
        bytes: new Uint8Array(each).fill(0x62),
      }),
    );
    const response = await postMultipart('/v1/intakes/extract', owner.session, [{ field: 'org_id', value: owner.org_id }, ...files]);
    expect(response.status).toBe(413);
    expect(response.body.message).toContain('BYTES_PER_REQUEST_MAX');
    // Nothing of a refused request is stored.
    const listed = await http(service, 'GET', `/v1/intake-sources?org_id=${owner.org_id}&limit=200`, { token: owner.session });
    expect(listed.body.data.some((source: any) => source.name.startsWith('part-'))).toBe(false);
  });

  it('refuses a JSON body above BYTES_PER_REQUEST_MAX with 413 naming the limit', async () => {
    const texts = Array.from({ length: 3 }, () => 'c'.repeat(BYTES_PER_SOURCE_MAX - 10));
    const response = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { text: texts, org_id: owner.org_id } });
    expect(response.status).toBe(413);
    expect(response.body.message).toContain('BYTES_PER_REQUEST_MAX');
  });

  it('refuses an unknown form field', async () => {
    const response = await postMultipart('/v1/intakes/extract', owner.session, [
      { field: 'org_id', value: owner.org_id },
      { field: 'colour', value: 'blue' },
      textFile().input,
    ]);
    expect(response.status).toBe(422);
    expect(response.body.details[0].path).toBe('/colour');
  });
});

describe('POST /v1/projects/{id}/intakes (confirm)', () => {
  let confirm_project: string;
  let brief_id: string;
  let quarantined_id: string;

  beforeAll(async () => {
    confirm_project = await newProject(owner, 'Confirm project');
    const corpus_files = corpus.filter((file) => file.name === 'brief.txt' || file.name === 'audit.txt');
    const extracted = await postMultipart('/v1/intakes/extract', owner.session, [
      { field: 'project_id', value: confirm_project },
      ...corpus_files.map((f) => f.input),
    ]);
    expect(extracted.status).toBe(201);
    brief_id = extracted.body.sources.find((source: any) => source.name === 'brief.txt').id;
    quarantined_id = extracted.body.sources.find((source: any) => source.name === 'audit.txt').id;
  });

  it('keeps a true quote, drops a fabricated one and reports it', async () => {
    const spec = emptyIntakeSpec();
    const true_quote = 'the app reduces time to triage by 40%';
    spec.claims = [
      {
        text: 'Reduces time to triage',
        topic: 'operational',
        provenance: 'user_declared',
        citations: [{ source_id: brief_id, line_start: 7, line_end: 7, quote: true_quote }],
      },
      {
        text: 'Halves melanoma deaths',
        topic: 'clinical',
        provenance: 'user_declared',
        citations: [{ source_id: brief_id, line_start: 7, line_end: 7, quote: 'the app halves melanoma deaths' }],
      },
    ];
    spec.problem = statement('Long waits', [{ source_id: brief_id, line_start: 3, line_end: 3, quote: 'wait   too long\nfor a specialist review' }]);
    const response = await http(service, 'POST', `/v1/projects/${confirm_project}/intakes`, { token: owner.session, body: { spec } });
    expect(response.status).toBe(201);
    expect(response.body.revision).toBe(1);
    expect(response.body.spec.claims).toHaveLength(1);
    expect(response.body.spec.claims[0].citations[0].quote).toBe(true_quote);
    expect(response.body.spec.problem.citations).toHaveLength(1); // whitespace is normalized, nothing else
    expect(response.body.dropped_citations).toEqual([
      expect.objectContaining({ path: '/claims/1/citations/0', source_id: brief_id, reason: 'quote_not_in_lines' }),
    ]);
    expect(response.body.dropped_claims).toEqual([expect.objectContaining({ path: '/claims/1', reason: 'no_valid_citation' })]);
    for (const dropped of response.body.dropped_citations) expect(schemaErrors(DroppedCitation, dropped)).toEqual([]);
    for (const dropped of response.body.dropped_claims) expect(schemaErrors(DroppedClaim, dropped)).toEqual([]);
    expect(JSON.stringify(response.body)).not.toContain('halves melanoma deaths');
    const read = await http(service, 'GET', `/v1/projects/${confirm_project}/intakes/1`, { token: owner.session });
    expect(read.status).toBe(200);
    expect(read.body.spec).toEqual(response.body.spec);
    expect(read.body.dropped_citations).toEqual(response.body.dropped_citations);
  });

  it('drops citations of a quarantined source, of lines that do not exist and of sources outside the project', async () => {
    const other_project = await newProject(owner, 'Other');
    const elsewhere = await http(service, 'POST', '/v1/intakes/extract', {
      token: owner.session,
      body: { text: 'Problem: referrals are slow.', project_id: other_project },
    });
    const spec = emptyIntakeSpec();
    spec.risks = [
      statement('risk a', [{ source_id: quarantined_id, line_start: 1, line_end: 1, quote: 'Referral audit' }]),
      statement('risk b', [{ source_id: brief_id, line_start: 90, line_end: 91, quote: 'Problem' }]),
      statement('risk c', [{ source_id: elsewhere.body.sources[0].id, line_start: 1, line_end: 1, quote: 'referrals are slow' }]),
      statement('risk d', [{ source_id: 'src_doesnotexist', line_start: 1, line_end: 1, quote: 'x' }]),
    ];
    const response = await http(service, 'POST', `/v1/projects/${confirm_project}/intakes`, { token: owner.session, body: { spec } });
    expect(response.status).toBe(201);
    expect(response.body.dropped_citations.map((d: any) => d.reason)).toEqual([
      'source_not_processed',
      'lines_out_of_range',
      'source_not_in_project',
      'source_not_in_project',
    ]);
    expect(response.body.spec.risks.map((risk: any) => risk.citations.length)).toEqual([0, 0, 0, 0]);
  });

  it('attaches a cited organization-level source to the project on confirmation', async () => {
    const org_level = await http(service, 'POST', '/v1/intakes/extract', {
      token: owner.session,
      body: { text: 'Care setting: community pharmacies.', org_id: owner.org_id },
    });
    const source_id = org_level.body.sources[0].id;
    const spec = emptyIntakeSpec();
    spec.care_setting = statement('community pharmacies', [{ source_id, line_start: 1, line_end: 1, quote: 'community pharmacies.' }]);
    const response = await http(service, 'POST', `/v1/projects/${confirm_project}/intakes`, { token: owner.session, body: { spec } });
    expect(response.body.dropped_citations).toEqual([]);
    expect((await http(service, 'GET', `/v1/intake-sources/${source_id}`, { token: owner.session })).body.project_id).toBe(confirm_project);
  });

  it('refuses an invalid document with 422 and one detail per field', async () => {
    const spec = { ...emptyIntakeSpec(), stage: { value: 'growth', provenance: 'observed', citations: [] } };
    const response = await http(service, 'POST', `/v1/projects/${confirm_project}/intakes`, { token: owner.session, body: { spec } });
    expect(response.status).toBe(422);
    const paths = response.body.details.map((detail: any) => detail.path);
    expect(paths).toContain('/spec/stage/value');
    expect(paths).toContain('/spec/stage/provenance');
  });

  it('replays a confirmation sent again with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `confirm-${confirm_project}` };
    const first = await http(service, 'POST', `/v1/projects/${confirm_project}/intakes`, { token: owner.session, body: { spec: emptyIntakeSpec() }, headers });
    const again = await http(service, 'POST', `/v1/projects/${confirm_project}/intakes`, { token: owner.session, body: { spec: emptyIntakeSpec() }, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.revision).toBe(first.body.revision);
  });

  it('answers another organization with 404 on intakes', async () => {
    expect((await http(service, 'GET', `/v1/projects/${confirm_project}/intakes`, { token: stranger.session })).status).toBe(404);
    expect((await http(service, 'GET', `/v1/projects/${confirm_project}/intakes/1`, { token: stranger.session })).status).toBe(404);
    const post = await http(service, 'POST', `/v1/projects/${confirm_project}/intakes`, { token: stranger.session, body: { spec: emptyIntakeSpec() } });
    expect(post.status).toBe(404);
  });

  it('gives 20 concurrent confirmations on one project the revisions 1 to 20, no gap, no duplicate', async () => {
    const fresh = await newProject(owner, 'Concurrent');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => {
        const spec = emptyIntakeSpec();
        spec.unknowns = [{ field: 'business.buyer', question: `question ${index}` }];
        return http(service, 'POST', `/v1/projects/${fresh}/intakes`, { token: owner.session, body: { spec } });
      }),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    const numbers = responses.map((response) => response.body.revision).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    const listed = await http(service, 'GET', `/v1/projects/${fresh}/intakes?limit=200`, { token: owner.session });
    expect(listed.body.data.map((row: any) => row.revision)).toEqual(Array.from({ length: 20 }, (_, index) => 20 - index));
    expect(listed.body.next_offset).toBeNull();
  });
});

describe('published contract and prompt', () => {
  it('serves IntakeSpec 1.0.0 at /v1/schemas/IntakeSpec and the drafting prompt at /v1/prompts/intake-draft', async () => {
    const schema = await http(service, 'GET', '/v1/schemas/IntakeSpec');
    expect(schema.status).toBe(200);
    expect(schema.body['x-contract-version']).toBe('1.0.0');
    expect(schema.body.properties.claims).toBeDefined();
    const prompt = await http(service, 'GET', '/v1/prompts/intake-draft');
    expect(prompt.status).toBe(200);
    expect(prompt.body.id).toBe('intake-draft');
    expect(prompt.body.instructions).toContain('user_declared');
  });
});
