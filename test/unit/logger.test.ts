import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { safePath } from '../../api/app.ts';
import { createLogger, isoTime } from '../../runtime/logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { logger: createLogger({ destination }), lines };
}

describe('log redaction', () => {
  it('redacts credentials, keys, passwords, tokens, secrets and codes at any depth, and keeps error and status codes', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer sekret-bearer', cookie: 'crucible_session=sekret-cookie' } },
        body: { api_key: 'sk-sekret-key', nested: { password: 'sekret-pass', refresh_token: 'sekret-token', code: 'SEKRET-CODE' } },
        list: [{ client_secret: 'sekret-client' }],
        error_code: 'VALIDATION_FAILED',
        status_code: 422,
      },
      'request',
    );
    const line = lines.join('');
    for (const value of ['sekret-bearer', 'sekret-cookie', 'sk-sekret-key', 'sekret-pass', 'sekret-token', 'SEKRET-CODE', 'sekret-client']) {
      expect(line).not.toContain(value);
    }
    expect(line).toContain('"error_code":"VALIDATION_FAILED"');
    expect(line).toContain('"status_code":422');
  });

  it('redacts a secret-named key of a flat line and keeps the rest of the line as given, line after line', () => {
    const { logger, lines } = capture();
    for (let index = 0; index < 3; index++)
      logger.info({ request_id: `req_${index}`, path: '/v1/projects', status: 200, user_id: undefined, secret: `sekret-${index}` }, 'request');
    lines.forEach((line, index) => {
      const parsed = JSON.parse(line);
      expect(parsed).toMatchObject({ request_id: `req_${index}`, path: '/v1/projects', status: 200, secret: '[redacted]', msg: 'request' });
      expect(line).not.toContain('sekret');
    });
    expect(lines).toHaveLength(3);
  });

  it('logs query strings without their values', () => {
    expect(safePath('/v1/exports/abc?token=sekret&x=1')).toBe('/v1/exports/abc?token=…&x=…');
    expect(safePath('/v1/projects')).toBe('/v1/projects');
  });
});

describe('the log stream', () => {
  it('formats the time as pino does, for the current millisecond', () => {
    const shape = /^,"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"$/;
    expect(pino.stdTimeFunctions.isoTime()).toMatch(shape);
    const before = Date.now();
    const [, time] = isoTime().match(shape)!;
    expect(Date.parse(time!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(time!)).toBeLessThanOrEqual(Date.now());
  });
});
