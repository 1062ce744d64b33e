// Hostile input never reaches the database, cookies cannot be ridden, refusals leave connections sane, and nothing that
// grants access is logged. A fast-check fuzz pass sends hostile values to every operation: never a 5xx, always the envelope.
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { createLogger } from '../../runtime/logger.ts';
import { pathParameters, type RouteDef } from '../../api/registry.ts';
import type { Db } from '../../store/db.ts';
import { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, VALID_NHS_NUMBER } from '../support/corpus.ts';
import { http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';

let service: TestService;
let owner: TestUser;
let routes: RouteDef[];
let project_id: string;

beforeAll(async () => {
  service = await startTestService({ env: { SERVICE_SPONSOR_API_ENABLED: 'true', SERVICE_BILLING_ENABLED: 'true' } });
  owner = await signedInOwner(service, 'hardening');
  routes = createApp({ config: service.config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null }).routes;
  const created = await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Hostile input', org_id: owner.org_id } });
  project_id = created.body.id;
});
afterAll(async () => {
  await service?.stop();
});

function expectEnvelope(body: any) {
  expect(body).toMatchObject({ code: expect.any(String), message: expect.any(String), request_id: expect.any(String) });
  expect(body).toHaveProperty('details');
}

/**
 * Sends raw bytes on one connection and returns everything the server wrote once it closed the connection. A server that
 * kept the connection open would leave this waiting until the test's timeout, failing the test.
 */
function rawExchange(port: number, chunks: string[]): Promise<{ text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (data) => {
      text += data.toString();
    });
    socket.on('close', () => resolve({ text }));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while the rest of a refused body is still being written: what it answered is what counts.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') return;
      reject(error);
    });
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

describe('strings a database cannot store', () => {
  it('refuses a NUL character or a lone surrogate in a JSON body with 422 naming the field, and stores nothing', async () => {
    for (const title of ['bad\u0000title', 'bad\ud800title', 'bad\udc00']) {
      const response = await http(service, 'POST', '/v1/projects', {
        token: owner.session,
        raw: JSON.stringify({ title, org_id: owner.org_id }),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(422);
      expect(response.body.details[0].path).toBe('/title');
    }
    const listed = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}`, { token: owner.session });
    expect(listed.body.data.map((p: { title: string }) => p.title)).toEqual(['Hostile input']);
  });

  it('refuses them in query parameters with 422 and answers an id that cannot be an id with 404', async () => {
    const query = await http(service, 'GET', `/v1/projects?org_id=${encodeURIComponent('org_\u0000')}`, { token: owner.session });
    expect(query.status).toBe(422);
    expect(query.body.details[0].path).toBe('/query/org_id');
    for (const id of ['proj_%00', 'proj_%ED%A0%80', 'x'.repeat(600), "proj_1' or '1'='1"]) {
      const response = await http(service, 'GET', `/v1/projects/${id}`, { token: owner.session });
      expect(response.status, id).toBe(404);
      expectEnvelope(response.body);
    }
  });
});

describe('credential first, then the body', () => {
  it('answers an anonymous request with no body 401, not 422', async () => {
    const response = await http(service, 'POST', '/v1/projects');
    expect(response.status).toBe(401);
  });

  it('refuses a JSON null or array where an object is required, also where the body is optional', async () => {
    for (const raw of ['null', '[]', '"x"', '7']) {
      const create = await http(service, 'POST', '/v1/projects', { token: owner.session, raw, headers: { 'content-type': 'application/json' } });
      expect(create.status, raw).toBe(422);
      const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, {
        token: owner.session,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(plan.status, raw).toBe(422);
    }
  });

  it('answers public endpoints the same with a stale or malformed credential', async () => {
    const plain = await http(service, 'GET', '/v1/models');
    for (const token of ['stale-garbage', 'cru.tok_0000.deadbeef', owner.session.slice(0, -4) + 'AAAA']) {
      const response = await http(service, 'GET', '/v1/models', { token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(plain.body);
    }
  });
});

describe('cookies cannot be ridden', () => {
  const cookie = () => ({ cookie: `crucible_session=${owner.session}` });

  it('refuses a cookie-authenticated write from another site or with no origin, and accepts a same-origin one', async () => {
    const body = { title: 'Via cookie', org_id: owner.org_id };
    const none = await http(service, 'POST', '/v1/projects', { body, headers: cookie() });
    expect(none.status).toBe(403);
    expect(none.body.details.reason).toBe('cross_site_cookie');
    const cross = await http(service, 'POST', '/v1/projects', {
      body,
      headers: { ...cookie(), origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(cross.status).toBe(403);
    const same = await http(service, 'POST', '/v1/projects', { body, headers: { ...cookie(), origin: service.url } });
    expect(same.status).toBe(201);
    const fetchSite = await http(service, 'POST', '/v1/projects', { body, headers: { ...cookie(), 'sec-fetch-site': 'same-origin' } });
    expect(fetchSite.status).toBe(201);
  });

  it('lets cookie-authenticated reads and bearer-authenticated writes through without an origin', async () => {
    expect((await http(service, 'GET', '/v1/me', { headers: cookie() })).status).toBe(200);
    expect((await http(service, 'POST', '/v1/projects', { token: owner.session, body: { title: 'Bearer', org_id: owner.org_id } })).status).toBe(201);
  });
});

describe('connections survive a refusal', () => {
  it('closes the connection after a 413 for a chunked body instead of reading the rest as a request', async () => {
    const port = Number(new URL(service.url).port);
    const head = `POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.session}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const big = 'a'.repeat(1024 * 1024 + 10);
    const chunk = `${big.length.toString(16)}\r\n${big}\r\n`;
    const next = 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const { text } = await rawExchange(port, [head, chunk, '0\r\n\r\n', next]);
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('PAYLOAD_TOO_LARGE');
    // The connection closed after the one answer: the health request sent behind the body was never read as a request.
    expect(text.match(/^HTTP\/1\.1 /gm)).toHaveLength(1);
  });

  it('answers an unparsable request with the error envelope', async () => {
    const port = Number(new URL(service.url).port);
    const { text } = await rawExchange(port, ['GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Line\r\n\r\n']);
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expectEnvelope(body);
  });
});

describe('every text that reaches a model or the literature index was screened', () => {
  it('refuses an imported IntakeSpec holding an NHS number or a cloud secret with 422, masked findings and pointers, and stores nothing', async () => {
    const said = (text: string) => ({ text, provenance: 'user_declared', citations: [] });
    const cases = [
      { ...emptyIntakeSpec(), problem: said(`Readmissions after discharge; example patient NHS number ${VALID_NHS_NUMBER}`) },
      {
        ...emptyIntakeSpec(),
        proposed_solution: said('an app'),
        risks: [said(`aws_access_key_id = ${AWS_ACCESS_KEY_ID}\naws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}`)],
      },
    ];
    for (const spec of cases) {
      const response = await http(service, 'POST', `/v1/projects/${project_id}/intakes`, { token: owner.session, body: { spec } });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      const paths = response.body.details.map((d: { path: string }) => d.path);
      expect(paths.some((path: string) => path === '/spec/problem/text' || path === '/spec/risks/0/text')).toBe(true);
      const text = JSON.stringify(response.body);
      for (const raw of [VALID_NHS_NUMBER, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY]) expect(text).not.toContain(raw);
    }
    const revisions = await http(service, 'GET', `/v1/projects/${project_id}/intakes`, { token: owner.session });
    expect(revisions.body.data).toEqual([]);
    // With nothing confirmed there is nothing to plan, so nothing of it can reach a model or the literature index.
    const plan = await http(service, 'POST', `/v1/projects/${project_id}/evaluation-plans`, { token: owner.session, body: {} });
    expect(plan.status).toBeGreaterThanOrEqual(400);
    for (const line of service.logs) for (const raw of [VALID_NHS_NUMBER, AWS_SECRET_ACCESS_KEY]) expect(line).not.toContain(raw);
  });
});

describe('fuzzing every operation', () => {
  const hostile = fc.oneof(
    fc.constant(null),
    fc.constant('\u0000'),
    fc.constant('\ud800'),
    fc.constant({ __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } }),
    fc.constant(JSON.parse('{"__proto__": {"admin": true}}')),
    fc.integer({ min: -(2 ** 53), max: 2 ** 53 }),
    fc.double(),
    fc.constant(1e308 * 10),
    fc.string({ maxLength: 40 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 5 }),
    fc.constant(Array.from({ length: 70 }).reduce<unknown>((inner) => [inner], 1)),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.constant('\u0000'), fc.integer()), { maxKeys: 4 }),
  );

  it('never answers 5xx, always with the envelope, and the service stays healthy', async () => {
    const operations = routes.filter((r) => r.auth !== 'webhook');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...operations),
        hostile,
        fc.string({ maxLength: 20 }),
        fc.dictionary(
          fc.constantFrom('offset', 'limit', 'org_id', 'project_id', 'wait'),
          fc.oneof(fc.string({ maxLength: 10 }), fc.constant('\u0000'), fc.constant('-1'), fc.constant('1e309')),
        ),
        async (route, body, param, query) => {
          let path = route.path;
          for (const name of pathParameters(route.path)) path = path.replace(`{${name}}`, encodeURIComponent(param || 'x'));
          const search = new URLSearchParams(query as Record<string, string>).toString();
          const raw = route.method === 'get' ? undefined : (JSON.stringify(body) ?? 'null');
          const response = await http(service, route.method.toUpperCase(), `${path}${search ? `?${search}` : ''}`, {
            token: owner.session,
            raw,
            headers: { 'content-type': 'application/json' },
          });
          // Billing without a configured Stripe account answers 503 BILLING_NOT_CONFIGURED by design; nothing else may be 5xx.
          const unconfigured = route.feature !== undefined && response.status === 503 && /_NOT_CONFIGURED$/.test(response.body?.code ?? '');
          if (!unconfigured) expect(response.status, `${route.method} ${path} ${raw?.slice(0, 80)}`).toBeLessThan(500);
          if (response.status >= 400) expectEnvelope(response.body);
        },
      ),
      { numRuns: 300 },
    );
    expect((await http(service, 'GET', '/v1/health')).status).toBe(200);
  });
});
