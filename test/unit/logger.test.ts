import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('the log destination under a burst (sonic-boom, patched: patches/sonic-boom+4.2.1.patch)', () => {
  it('writes every line whole and in order, in writes no larger than maxWrite, measuring each line once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crucible-log-'));
    try {
      const file = join(dir, 'log.ndjson');
      const max_write = 4096;
      const destination = pino.destination({ dest: file, sync: false, maxWrite: max_write, mkdir: true });
      await new Promise<void>((resolve) => destination.once('ready', () => resolve()));
      const logger = createLogger({ destination });
      const sent: string[] = [];
      const buffers = destination as unknown as { _bufs: string[]; _lastBufLen: number };
      // Lines are written while the first write is still in flight (fs.write answers on a later turn), so they are
      // gathered into buffers; multi-byte text checks the byte count, not the string length.
      for (let index = 0; index < 5_000; index++) {
        const path = index % 3 === 0 ? `/v1/projects/prj_${index}?q=café—✓🩺` : `/v1/runs/run_${index}`;
        sent.push(path);
        logger.info({ request_id: `req_${index}`, method: 'GET', path, status: 200 }, 'request');
        const last = buffers._bufs.at(-1);
        if (last !== undefined) expect(buffers._lastBufLen).toBe(Buffer.byteLength(last));
      }
      expect(buffers._bufs.length).toBeGreaterThan(1);
      for (const buffer of buffers._bufs) expect(Buffer.byteLength(buffer)).toBeLessThanOrEqual(max_write);
      await new Promise<void>((resolve, reject) => {
        destination.once('close', () => resolve());
        destination.once('error', reject);
        destination.end();
      });
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines.map((line) => (JSON.parse(line) as { path: string }).path)).toEqual(sent);
      expect(lines.map((line) => (JSON.parse(line) as { request_id: string }).request_id)).toEqual(sent.map((_, index) => `req_${index}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
