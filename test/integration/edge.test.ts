// The edge of the service over a real port: the credential before any deployment flag,
// text that cannot be stored refused in multipart fields and JSON, clients that leave or stall logged as such at info
// (not as 500s), `nosniff` and the right reason phrase on every answer.
import { connect } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { pathParameters, type RouteDef } from '../../api/registry.ts';
import { createLogger } from '../../runtime/logger.ts';
import type { Db } from '../../store/db.ts';
import { eventually, http, signedInOwner, startTestService, type TestService, type TestUser } from '../support/harness.ts';

const REQUEST_TIMEOUT_SECONDS = 2;

let service: TestService;
let owner: TestUser;
let routes: RouteDef[];

beforeAll(async () => {
  // Both flags off (the default): every sponsor and billing route is switched off.
  service = await startTestService({ mode: 'api', env: { CRUCIBLE_REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_SECONDS) } });
  owner = await signedInOwner(service, 'edge');
  routes = createApp({ config: service.config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null }).routes;
});
afterAll(async () => {
  await service?.stop();
});

const port = () => Number(new URL(service.url).port);

/** Sends raw bytes; resolves with what the server wrote once the connection closed (at once with `destroy_after_write`). */
function rawExchange(chunks: Array<string | Buffer>, options: { destroy_after_write?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(), '127.0.0.1');
    let text = '';
    socket.on('data', (data) => {
      text += data.toString('latin1');
    });
    socket.on('close', () => resolve(text));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.destroy_after_write) socket.write('', () => socket.destroy());
    });
  });
}

type LogLine = { level: number; msg: string; status?: number; error_code?: string; request_id?: string; err?: { message?: string } };
const logLines = (): LogLine[] => service.logs.map((line) => JSON.parse(line) as LogLine);

function samplePath(route: RouteDef): string {
  let path = route.path;
  for (const name of pathParameters(route.path))
    path = path.replace(`{${name}}`, name.endsWith('_id') ? `${name.split('_')[0]!.slice(0, 4)}_0000000000000000` : 'x');
  return path;
}

describe('the credential before any deployment flag', () => {
  it('answers every flagged route 401 without a credential, then 503 *_NOT_CONFIGURED to a signed-in caller', async () => {
    const flagged = routes.filter((route) => route.feature !== undefined && (route.auth === 'user' || route.auth === 'session'));
    expect(flagged.length).toBeGreaterThanOrEqual(12);
    for (const route of flagged) {
      const what = `${route.method} ${route.path}`;
      const method = route.method.toUpperCase();
      const body = method === 'GET' ? {} : { body: {} };
      const anonymous = await http(service, method, samplePath(route), body);
      expect(anonymous.status, what).toBe(401);
      expect(anonymous.body.code, what).toBe('UNAUTHENTICATED');
      const signedIn = await http(service, method, samplePath(route), { ...body, token: owner.session });
      expect(signedIn.status, what).toBe(503);
      expect(signedIn.body.code, what).toBe(route.feature === 'sponsor' ? 'SPONSOR_NOT_CONFIGURED' : 'BILLING_NOT_CONFIGURED');
    }
  });

  it('keeps the flag first where no credential is taken (the payment webhook) and leaves public routes alone', async () => {
    const webhook = await http(service, 'POST', '/v1/billing/stripe/webhook', { body: {} });
    expect(webhook.status).toBe(503);
    expect(webhook.body.code).toBe('BILLING_NOT_CONFIGURED');
    expect((await http(service, 'GET', '/v1/models')).status).toBe(200);
  });
});

/** A multipart body built by hand, so a field can carry any bytes and its own charset. */
function multipart(parts: Array<{ name: string; value: Buffer | string; charset?: string }>): { body: Buffer; type: string } {
  const boundary = 'edge-boundary-7f3a';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const type = part.charset ? `Content-Type: text/plain; charset=${part.charset}\r\n` : '';
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n${type}\r\n`),
      Buffer.from(part.value),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

describe('text that cannot be stored', () => {
  it('refuses a NUL or a lone surrogate in any multipart field of POST /v1/intakes/extract with 422 naming the field, storing nothing', async () => {
    const cases: Array<{ parts: Parameters<typeof multipart>[0]; path: string }> = [
      {
        parts: [
          { name: 'org_id', value: `${owner.org_id}\u0000` },
          { name: 'text', value: 'hello' },
        ],
        path: '/org_id',
      },
      {
        parts: [
          { name: 'project_id', value: 'proj_\u0000' },
          { name: 'text', value: 'hello' },
        ],
        path: '/project_id',
      },
      {
        parts: [
          { name: 'org_id', value: owner.org_id },
          { name: 'text', value: 'fine' },
          { name: 'text', value: 'a\u0000b' },
        ],
        path: '/text/1',
      },
      // bytes 00 D8 read as UTF-16LE are the lone high surrogate U+D800
      {
        parts: [
          { name: 'org_id', value: owner.org_id },
          { name: 'text', value: Buffer.from([0x41, 0x00, 0x00, 0xd8]), charset: 'utf-16le' },
        ],
        path: '/text/0',
      },
    ];
    for (const { parts, path } of cases) {
      const form = multipart(parts);
      const response = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, raw: form.body, headers: { 'content-type': form.type } });
      expect(response.status, path).toBe(422);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.details[0].path).toBe(path);
      expect(response.body.message).toContain(path.slice(1));
    }
    const listed = await http(service, 'GET', `/v1/intake-sources?org_id=${owner.org_id}`, { token: owner.session });
    expect(listed.body.data).toEqual([]);
  });

  it('refuses the same in a JSON body, pasted text included', async () => {
    const response = await http(service, 'POST', '/v1/intakes/extract', { token: owner.session, body: { org_id: owner.org_id, text: ['fine', 'a\u0000b'] } });
    expect(response.status).toBe(422);
    expect(response.body.details[0].path).toBe('/text/1');
  });

  it('refuses a JSON body that is not valid UTF-8 with 422 instead of storing U+FFFD', async () => {
    const raw = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from(`","org_id":"${owner.org_id}"}`)]);
    const response = await http(service, 'POST', '/v1/projects', { token: owner.session, raw, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('UTF-8') });
    const listed = await http(service, 'GET', `/v1/projects?org_id=${owner.org_id}`, { token: owner.session });
    expect(listed.body.data).toEqual([]);
  });
});

describe('clients that leave or stall', () => {
  const head = (length: number) =>
    `POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.session}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('logs a request whose client closed mid-body at info as 499, never as a 500 or an error-level line (JSON and multipart)', async () => {
    const form = multipart([
      { name: 'org_id', value: owner.org_id },
      { name: 'text', value: 'x'.repeat(5000) },
    ]);
    const multipartHead = `POST /v1/intakes/extract HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.session}\r\nContent-Type: ${form.type}\r\nContent-Length: ${form.body.length}\r\n\r\n`;
    const requests = [
      { start: head(1000), partial: '{"title":"half' },
      { start: multipartHead, partial: form.body.subarray(0, 300) },
    ];
    for (const [index, { start, partial }] of requests.entries()) {
      const request_id = `req_abort_${index}_${Date.now()}`;
      await rawExchange([start.replace('Host:', `X-Request-Id: ${request_id}\r\nHost:`), partial], { destroy_after_write: true });
      const line = await eventually(async () => logLines().find((l) => l.request_id === request_id && l.msg === 'request'), 10_000, 'the request log line');
      expect(line).toMatchObject({ level: 30, status: 499, error_code: 'CLIENT_CLOSED_REQUEST' });
    }
    expect(logLines().filter((l) => l.level >= 50)).toEqual([]);
  });

  it(`answers a body that stops arriving for ${REQUEST_TIMEOUT_SECONDS} s with 408 REQUEST_TIMEOUT and logs it at info`, async () => {
    const request_id = `req_slow_${Date.now()}`;
    const start = head(1000).replace('Host:', `X-Request-Id: ${request_id}\r\nHost:`);
    const text = await rawExchange([start, '{"title":"slow']);
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(text.toLowerCase()).toContain('x-content-type-options: nosniff');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'REQUEST_TIMEOUT', request_id: expect.any(String) });
    const line = await eventually(async () => logLines().find((l) => l.request_id === request_id && l.msg === 'request'), 10_000, 'the request log line');
    expect(line).toMatchObject({ level: 30, status: 408, error_code: 'REQUEST_TIMEOUT' });
    expect(logLines().filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe('every answer says what it is', () => {
  it('sends X-Content-Type-Options: nosniff on API JSON, errors and the web app', async () => {
    const answers = [
      await fetch(`${service.url}/v1/models`),
      await fetch(`${service.url}/v1/no-such-route`),
      await fetch(`${service.url}/v1/projects`, { method: 'POST' }),
      await fetch(`${service.url}/v1/projects`, { method: 'PUT' }),
      await fetch(`${service.url}/`),
      await fetch(`${service.url}/projects/anything`),
    ];
    for (const answer of answers) expect(answer.headers.get('x-content-type-options'), `${answer.url} ${answer.status}`).toBe('nosniff');
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401, 405, 200, 200]);
  });

  it('gives every status its own reason phrase, 431 included', async () => {
    const big = await rawExchange([`GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(big).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(big.toLowerCase()).toContain('x-content-type-options: nosniff');
    const malformed = await rawExchange(['GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Line\r\n\r\n']);
    expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const answers = [
      await fetch(`${service.url}/v1/projects`, { method: 'POST' }),
      await fetch(`${service.url}/v1/no-such-route`),
      await fetch(`${service.url}/v1/projects`, { method: 'PUT' }),
      await fetch(`${service.url}/v1/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.session}`, 'content-type': 'application/json' },
        body: '{',
      }),
      await fetch(`${service.url}/v1/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }),
      }),
      await fetch(`${service.url}/v1/billing/packs`, { headers: { authorization: `Bearer ${owner.session}` } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 404, 405, 422, 413, 503]);
    for (const answer of answers) expect(answer.statusText, String(answer.status)).toBe(STATUS_CODES[answer.status]);
  });
});
