// The connection to a secured Temporal (Temporal Cloud, a cluster with mTLS): TEMPORAL_API_KEY, TEMPORAL_TLS_CERT /
// _KEY / _CA (paths) and TEMPORAL_TLS_SERVER_NAME are read at start into the options every client and worker connects
// with, and a bad value stops the start naming the variable. Certificates are made for the test with openssl.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, temporalConnectOptions } from '../../runtime/config.ts';
import { CLIENT_EXTENSIONS, SERVER_EXTENSIONS, testCa, testCertificate } from '../support/certificates.ts';

const dir = mkdtempSync(join(tmpdir(), 'crucible-tls-config-'));
const file = (name: string) => join(dir, name);
const mtls = () => ({ TEMPORAL_TLS_CERT: file('client.pem'), TEMPORAL_TLS_KEY: file('client.key'), TEMPORAL_TLS_CA: file('ca.pem') });

beforeAll(() => {
  testCa(dir);
  testCertificate(dir, 'server', SERVER_EXTENSIONS);
  testCertificate(dir, 'client', CLIENT_EXTENSIONS);
  writeFileSync(file('not-a-cert.pem'), 'hello\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('connecting to a secured Temporal', () => {
  it('connects in plaintext by default, with TLS when asked, and with the client certificate, CA and server name given', () => {
    expect(temporalConnectOptions(loadConfig({}))).toEqual({});
    expect(temporalConnectOptions(loadConfig({ TEMPORAL_TLS: 'true' }))).toEqual({ tls: {} });
    const config = loadConfig({ ...mtls(), TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' });
    const { tls } = temporalConnectOptions(config);
    expect(tls?.serverNameOverride).toBe('temporal.internal');
    expect(tls?.clientCertPair?.crt.toString()).toContain('-----BEGIN CERTIFICATE-----');
    expect(tls?.clientCertPair?.key.toString()).toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    expect(tls?.serverRootCACertificate?.toString()).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('sends an API key over TLS (on by default with a key), as Temporal Cloud asks', () => {
    expect(temporalConnectOptions(loadConfig({ TEMPORAL_API_KEY: 'eyJhbGciOi.key-of-the-namespace' }))).toEqual({
      tls: {},
      apiKey: 'eyJhbGciOi.key-of-the-namespace',
    });
  });

  it('stops the start over a bad value, naming the variable and what to fix', () => {
    const cases: [Record<string, string>, string][] = [
      [{ ...mtls(), TEMPORAL_TLS_CERT: file('missing.pem') }, `TEMPORAL_TLS_CERT must be the path of a readable PEM file (${file('missing.pem')}: ENOENT)`],
      [{ ...mtls(), TEMPORAL_TLS_CA: file('not-a-cert.pem') }, 'TEMPORAL_TLS_CA'],
      [{ ...mtls(), TEMPORAL_TLS_KEY: file('not-a-cert.pem') }, 'TEMPORAL_TLS_KEY'],
      [{ ...mtls(), TEMPORAL_TLS_KEY: file('server.key') }, "TEMPORAL_TLS_KEY is not the private key of TEMPORAL_TLS_CERT's certificate"],
      [{ TEMPORAL_TLS_CERT: file('client.pem') }, 'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together'],
      [{ ...mtls(), TEMPORAL_TLS: 'false' }, 'TEMPORAL_TLS is false but TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA are set'],
      [{ TEMPORAL_API_KEY: 'has a space' }, 'TEMPORAL_API_KEY must be'],
      [{ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }, 'TEMPORAL_TLS is false but TEMPORAL_API_KEY is set'],
      [{ TEMPORAL_TLS_SERVER_NAME: 'not a host' }, 'TEMPORAL_TLS_SERVER_NAME must be a host name'],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), message).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
  });

  it('never puts the key material or the API key into the error', () => {
    let message = '';
    try {
      loadConfig({ TEMPORAL_API_KEY: 'secret-api-key', TEMPORAL_TLS: 'false' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('TEMPORAL_API_KEY');
    expect(message).not.toContain('secret-api-key');
  });
});
