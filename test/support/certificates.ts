// Throwaway X.509 material for the TLS tests, made with openssl: a CA, and certificates it signs for a server
// (localhost) or a client. Valid two days; nothing here is a credential of anything.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** Writes ca.pem and ca.key into dir. */
export function testCa(dir: string): void {
  const extensions = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  const out = ['-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.pem'), '-days', '2', '-subj', '/CN=Crucible test CA'];
  execFileSync('openssl', ['req', '-x509', ...EC_KEY, ...out, ...extensions], { stdio: 'pipe' });
}

/** Writes <name>.pem and <name>.key into dir, signed by its CA; `extensions` are openssl extension lines. */
export function testCertificate(dir: string, name: string, extensions: string): void {
  const file = (suffix: string) => join(dir, `${name}.${suffix}`);
  execFileSync('openssl', ['req', ...EC_KEY, '-keyout', file('key'), '-out', file('csr'), '-subj', `/CN=${name}`], { stdio: 'pipe' });
  writeFileSync(file('ext'), `${extensions}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n`);
  const ca = ['-CA', join(dir, 'ca.pem'), '-CAkey', join(dir, 'ca.key'), '-CAcreateserial'];
  execFileSync('openssl', ['x509', '-req', '-in', file('csr'), ...ca, '-days', '2', '-out', file('pem'), '-extfile', file('ext')], { stdio: 'pipe' });
}

/** A server certificate for localhost that also authenticates as a client (Temporal's system workers use it so). */
export const SERVER_EXTENSIONS = 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth';
export const CLIENT_EXTENSIONS = 'extendedKeyUsage=clientAuth';
