// Hostile bodies get bounded answers over a real port: validation lists at most PROBLEMS_LISTED_MAX problems and counts
// the rest, a body of more than JSON_NODES_MAX JSON values is refused before anything walks it, a public endpoint refuses
// an oversize body before parsing it, and text built to make screening backtrack is screened like any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_NODES_MAX } from '../../api/router.ts';
import { SIGN_IN_BODY_LIMIT_BYTES } from '../../domain/contracts/accounts.ts';
import { PROBLEMS_LISTED_MAX } from '../../domain/errors.ts';
import { LINE_CHARS_MAX } from '../../domain/intake/sources.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { queueWorld } from '../support/worlds.ts';

let service: TestService;
let owner: TestUser;
let project_id: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signedInOwner(service, 'bounded');
  const created = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Bounded work', org_id: owner.org_id } });
  project_id = created.body.id;
});
afterAll(async () => {
  await service?.stop();
});

/** About 1 MB of JSON: an object of 90,000 fields no schema knows. */
function unknownFields(base: Record<string, unknown> = {}): string {
  const fields: Record<string, unknown> = { ...base };
  for (let index = 0; index < 90_000; index++) fields[`k${index}`] = 0;
  return JSON.stringify(fields);
}

const json = { 'content-type': 'application/json' };

describe('validation answers are bounded', () => {
  it('answers a WorldSpec of 90,000 unknown fields with the first PROBLEMS_LISTED_MAX problems and the count of the rest', async () => {
    const raw = unknownFields(queueWorld({ servers: 1, arrivals_per_minute: 1, mean_service_minutes: 1 }) as unknown as Record<string, unknown>);
    const response = await http(service, 'POST', '/v1/world-specs/validate', { raw, headers: json });
    expect(response.status).toBe(200);
    expect(response.body.valid).toBe(false);
    expect(response.body.problems).toHaveLength(PROBLEMS_LISTED_MAX);
    expect(response.body.problems.length + response.body.problems_not_listed).toBe(90_000);
    // The allowed fields are said once, at the first unknown field; the others point there.
    const said = response.body.problems.filter((problem: { message: string }) => problem.message.includes('allowed:'));
    expect(said).toHaveLength(1);
    expect(response.body.problems[1].message).toBe(`is not a known field here (see ${said[0].pointer} for what is allowed)`);
    expect(JSON.stringify(response.body).length).toBeLessThan(16 * 1024);
  });

  it('refuses saving such a world with the first PROBLEMS_LISTED_MAX problems and a last entry counting the rest', async () => {
    const response = await http(service, 'POST', `/v1/projects/${project_id}/worlds`, { token: owner.session, raw: unknownFields(), headers: json });
    expect(response.status).toBe(422);
    expect(response.body.details).toHaveLength(PROBLEMS_LISTED_MAX + 1);
    const last = response.body.details.at(-1);
    expect(last.problems_not_listed).toBeGreaterThan(89_000);
    expect(response.body.message).toContain(`the first ${PROBLEMS_LISTED_MAX} are listed`);
    expect(JSON.stringify(response.body).length).toBeLessThan(16 * 1024);
  });

  it('refuses a request body of 90,000 unknown fields on a closed schema with the first problems and the count', async () => {
    const raw = unknownFields({ text: 'a note', org_id: owner.org_id });
    const response = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, raw, headers: json });
    expect(response.status).toBe(422);
    expect(response.body.details).toHaveLength(PROBLEMS_LISTED_MAX + 1);
    expect(response.body.details.at(-1)).toEqual({ message: '89900 more problems not listed', problems_not_listed: 89_900 });
    expect(response.body.message).toContain(`the first ${PROBLEMS_LISTED_MAX} are listed, 89900 more are not`);
    expect(JSON.stringify(response.body).length).toBeLessThan(16 * 1024);
  });

  it('refuses a body with more unknown fields than the schema library reports errors for, listing each', async () => {
    // TypeBox stops after eight errors and then omits its summary of unknown fields: nine were accepted before.
    const body: Record<string, unknown> = { title: 'Nine extras', org_id: owner.org_id };
    for (let index = 0; index < 9; index++) body[`extra${index}`] = index;
    const response = await http(service, 'POST', '/v1/projects', { token: owner.session, body });
    expect(response.status).toBe(422);
    expect(response.body.details.map((detail: { path: string }) => detail.path)).toEqual(Array.from({ length: 9 }, (_, index) => `/extra${index}`));
  });

  it('refuses a 1 MB array of empty objects with 422 naming JSON_NODES_MAX, on the public validator and elsewhere', async () => {
    const raw = `[${Array.from({ length: 333_000 }, () => '{}').join(',')}]`;
    expect(raw.length).toBeGreaterThan(900_000);
    for (const [path, token] of [
      ['/v1/world-specs/validate', undefined],
      [`/v1/projects/${project_id}/worlds`, owner.session],
    ] as const) {
      const response = await http(service, 'POST', path, { token, raw, headers: json });
      expect(response.status, path).toBe(422);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.message).toContain(`JSON_NODES_MAX (${JSON_NODES_MAX})`);
      expect(response.body.details).toEqual([
        { path: '/', message: `more than ${JSON_NODES_MAX} JSON values`, limit: 'JSON_NODES_MAX', limit_value: JSON_NODES_MAX },
      ]);
    }
    // Nested inside an object, as a world's steps would be.
    const nested = await http(service, 'POST', '/v1/world-specs/validate', { raw: `{"steps":${raw}}`, headers: json });
    expect(nested.status).toBe(422);
    expect(nested.body.details[0].limit).toBe('JSON_NODES_MAX');
  });
});

describe('public endpoints refuse oversize bodies before parsing them', () => {
  it('refuses a 1 MB sign-in body with 413 naming SIGN_IN_BODY_LIMIT_BYTES, and counts no attempt', async () => {
    const raw = JSON.stringify({ email: owner.email, password: 'p'.repeat(1024 * 1024) });
    const response = await http(service, 'POST', '/v1/auth/sessions', { raw, headers: json });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(response.body.message).toContain(`SIGN_IN_BODY_LIMIT_BYTES (${SIGN_IN_BODY_LIMIT_BYTES} bytes)`);
    // A body that is not even JSON is refused the same way: its size is all that was looked at.
    const garbage = await http(service, 'POST', '/v1/auth/sessions', { raw: '{'.repeat(SIGN_IN_BODY_LIMIT_BYTES + 1), headers: json });
    expect(garbage.status).toBe(413);
    const signed_in = await http(service, 'POST', '/v1/auth/sessions', { body: { email: owner.email, password: owner.password } });
    expect(signed_in.status).toBe(201);
  });

  it('takes the longest allowed email and password, every character escaped, within the limit', async () => {
    const escaped = (text: string) => text.replace(/./gsu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const raw = `{"email":"${escaped(`${'e'.repeat(240)}@example.org`)}","password":"${escaped('p'.repeat(1024))}"}`;
    expect(raw.length).toBeLessThanOrEqual(SIGN_IN_BODY_LIMIT_BYTES);
    const response = await http(service, 'POST', '/v1/auth/sessions', { raw, headers: json });
    expect(response.status).toBe(401);
  });
});

describe('screening text built to backtrack', () => {
  it('screens the hostile texts of the review like any other and reports the long lines it split', async () => {
    const texts = [
      `ward ${'a.'.repeat(20_000)}`, // a short word and one character pair repeated
      `MRN${' '.repeat(40_000)}x`, // an identifier label and tens of thousands of spaces
      `patient ward ${'a%'.repeat(20_000)}@`, // e-mail local part
      `link ${'a-'.repeat(20_000)}://user:`, // URL with a password
    ];
    const response = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { text: texts, org_id: owner.org_id } });
    expect(response.status).toBe(201);
    for (const source of response.body.sources) {
      expect(source.status).toBe('processed');
      expect(source.lines_split).toBe(1);
      expect(source.line_count).toBeGreaterThanOrEqual(Math.ceil(40_000 / LINE_CHARS_MAX));
    }
  });

  it('still quarantines a secret that follows a very long line', async () => {
    const text = `${'lorem ipsum '.repeat(2_000)}\npassword = hunter2-hunter2`;
    const response = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { text, org_id: owner.org_id } });
    expect(response.status).toBe(201);
    const [source] = response.body.sources;
    expect(source.status).toBe('excluded_for_privacy');
    expect(source.findings.map((finding: { kind: string }) => finding.kind)).toContain('password');
    expect(source.lines_split).toBe(1);
  });
});
