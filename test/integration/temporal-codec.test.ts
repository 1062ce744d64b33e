// Temporal holds ciphertext: a draft's history, read with the real Temporal CLI, carries no source text; the operator
// codec endpoint (Temporal's remote codec protocol) gives it back to an operator, and only to one.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ENCRYPTED_ENCODING, EncryptionCodec, operatorCodecToken } from '../../integrations/temporal/codec.ts';
import { grantCredits } from '../../store/credits/ledger.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

const run = promisify(execFile);
const CODEC = '/v1/operator/temporal-codec';
const UI_ORIGIN = 'http://localhost:8233';

/** Every base64 string in a JSON document, decoded: a payload's plaintext would hide there in `temporal … --output json`. */
function decodedStrings(json: string): string {
  return (json.match(/"[A-Za-z0-9+/]{8,}={0,2}"/g) ?? []).map((quoted) => Buffer.from(quoted.slice(1, -1), 'base64').toString('latin1')).join('\n');
}

type JsonPayload = { metadata: Record<string, string>; data?: string };

/** The payloads of a history in proto-JSON (objects with metadata and data), leaving out search attributes. */
function payloadsOf(value: unknown, out: JsonPayload[] = []): JsonPayload[] {
  if (Array.isArray(value)) for (const item of value) payloadsOf(item, out);
  else if (value && typeof value === 'object') {
    if ('metadata' in value && typeof (value as JsonPayload).metadata?.encoding === 'string') out.push(value as JsonPayload);
    else for (const [key, item] of Object.entries(value)) if (key !== 'searchAttributes') payloadsOf(item, out);
  }
  return out;
}

async function draftWithSourceText(service: TestService, owner: TestUser, text: string): Promise<string> {
  const project = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Codec check', org_id: owner.org_id } });
  const form = new FormData();
  form.append('project_id', project.body.id);
  form.append('files', new Blob([text], { type: 'text/plain' }), 'pathway.txt');
  const extracted = await fetch(`${service.url}/v1/intakes/extract`, { method: 'POST', headers: { authorization: `Bearer ${owner.session}` }, body: form });
  const { sources } = (await extracted.json()) as { sources: Array<{ id: string; status: string }> };
  expect(sources[0]!.status).toBe('processed');
  await service.db.transaction((tx) => grantCredits(tx, { org_id: owner.org_id, credits: 1000, reason: 'codec test grant', caused_by: 'test' }));
  const started = await http(service, 'POST', `/v1/projects/${project.body.id}/intakes/parse`, {
    token: owner.session,
    body: { source_ids: [sources[0]!.id] },
  });
  expect(started.status).toBe(202);
  await eventually(
    async () => (await http(service, 'GET', `/v1/intake-drafts/${started.body.id}`, { token: owner.session })).body.status === 'succeeded',
    60_000,
    'the draft to succeed',
  );
  return `intake-draft-${started.body.id}`;
}

async function workflowShow(workflow_id: string, extra: string[] = []): Promise<string> {
  const { stdout } = await run(
    inject('temporal_cli'),
    ['workflow', 'show', '--address', inject('temporal_address'), '--workflow-id', workflow_id, '--output', 'json', ...extra],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

describe('encrypted workflow payloads', () => {
  let service: TestService;
  let owner: TestUser;
  let workflow_id: string;
  let token: string;
  // Distinctive words of the source, found nowhere else: their absence from the history means the text is not there.
  const marker = `Quokkaline ${randomBytes(4).toString('hex')} pathway`;
  const source = [`Project brief: ${marker}`, `Problem: the ${marker} referral queue is too long for dermatology triage.`, 'Users: practice nurses.'].join(
    '\n',
  );

  beforeAll(async () => {
    service = await startTestService();
    owner = await signedInOwner(service, 'codec-owner');
    token = operatorCodecToken(service.config.master_key!);
    workflow_id = await draftWithSourceText(service, owner, source);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("keeps the draft's source text out of its Temporal history, which carries the codec's encoding instead", async () => {
    const history = await workflowShow(workflow_id);
    expect(history).toContain('"events"');
    expect(history).not.toContain('Quokkaline');
    expect(decodedStrings(history)).not.toContain('Quokkaline');
    // Metadata values are bytes, base64 in proto-JSON: the encoding and the key id of every payload.
    expect(history).toMatch(new RegExp(`"encoding":\\s*"${Buffer.from(ENCRYPTED_ENCODING).toString('base64')}"`));
    expect(history).toContain(Buffer.from(new EncryptionCodec(service.config.master_key!).current.id).toString('base64'));
    // Every payload is encrypted but the search attributes', which Temporal must read to index (ids only: docs/operators.md).
    const payloads = payloadsOf(JSON.parse(history));
    expect(payloads.length).toBeGreaterThan(5);
    for (const payload of payloads) expect(Buffer.from(payload.metadata.encoding!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
  });

  it('decodes the history for the Temporal CLI through the codec endpoint with the operator token', async () => {
    const history = await workflowShow(workflow_id, ['--codec-endpoint', `${service.url}${CODEC}`, '--codec-auth', `Bearer ${token}`]);
    expect(`${history}\n${decodedStrings(history)}`).toContain(marker);
  });

  it('refuses a caller without the operator token, or with a user session', async () => {
    const body = { payloads: [] };
    expect((await http(service, 'POST', `${CODEC}/decode`, { body })).status).toBe(401);
    expect((await http(service, 'POST', `${CODEC}/decode`, { body, token: owner.session })).status).toBe(401);
    expect((await http(service, 'POST', `${CODEC}/t/${randomBytes(32).toString('base64url')}/decode`, { body })).status).toBe(401);
    const refused = await http(service, 'POST', `${CODEC}/encode`, { body, token: 'wrong' });
    expect(refused.body.code).toBe('UNAUTHENTICATED');
    expect(refused.body.message).toContain('temporal-codec-token');
  });

  it("speaks Temporal's codec protocol: encode then decode gives the payloads back, base64 proto-JSON both ways", async () => {
    const payload = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from(JSON.stringify(marker)).toString('base64') };
    const headers = { 'x-namespace': service.config.temporal_namespace };
    const encoded = await http(service, 'POST', `${CODEC}/encode`, { token, headers, body: { payloads: [payload] } });
    expect(encoded.status).toBe(200);
    expect(encoded.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(encoded.body.payloads[0].metadata.encoding, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(encoded.body.payloads[0].data, 'base64').toString('latin1')).not.toContain('Quokkaline');
    // The UI's form: the token as a path segment (the UI cannot add a header of its own).
    const decoded = await http(service, 'POST', `${CODEC}/t/${token}/decode`, { headers, body: encoded.body });
    expect(decoded.status).toBe(200);
    expect(decoded.body.payloads).toEqual([payload]);
    const logged = service.logs.filter((line) => line.includes(`${CODEC}/t/`));
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line).not.toContain(token);
  });

  it('refuses another namespace, a malformed body and a payload it cannot decrypt, each with what to fix', async () => {
    const other = await http(service, 'POST', `${CODEC}/decode`, { token, headers: { 'x-namespace': 'elsewhere' }, body: { payloads: [] } });
    expect(other.status).toBe(403);
    const malformed = await http(service, 'POST', `${CODEC}/decode`, { token, body: { payloads: [{ data: 'not base64!' }] } });
    expect(malformed.status).toBe(422);
    const foreign = await new EncryptionCodec(randomBytes(32)).encode([{ metadata: {}, data: new Uint8Array([1]) }]);
    const body = {
      payloads: foreign.map((p) => ({
        metadata: {
          encoding: Buffer.from(p.metadata!.encoding!).toString('base64'),
          'encryption-key-id': Buffer.from(p.metadata!['encryption-key-id']!).toString('base64'),
        },
        data: Buffer.from(p.data!).toString('base64'),
      })),
    };
    const undecryptable = await http(service, 'POST', `${CODEC}/decode`, { token, body });
    expect(undecryptable.status).toBe(422);
    expect(undecryptable.body.message).toContain('SERVICE_MASTER_KEY_PREVIOUS');
    expect((await http(service, 'GET', `${CODEC}/decode`, { token })).status).toBe(405);
    const mistyped = await http(service, 'POST', `${CODEC}/t/${token}/decod`, { body: { payloads: [] } });
    expect(mistyped.status).toBe(404);
    expect(JSON.stringify(mistyped.body)).not.toContain(token);
    expect(service.logs.join('\n')).not.toContain(token);
  });

  it('lets browsers in from the Temporal UI origin only (CORS)', async () => {
    const preflight = (origin: string) =>
      fetch(`${service.url}${CODEC}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    const elsewhere = await preflight('https://evil.example');
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    const posted = await http(service, 'POST', `${CODEC}/t/${token}/decode`, { headers: { origin: 'https://evil.example' }, body: { payloads: [] } });
    expect(posted.status).toBe(403);
    const from_ui = await http(service, 'POST', `${CODEC}/t/${token}/decode`, { headers: { origin: UI_ORIGIN }, body: { payloads: [] } });
    expect(from_ui.status).toBe(200);
    expect(from_ui.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  });
});
