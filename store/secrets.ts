// Hashing of what must never be stored in clear: passwords (scrypt) and token secrets (SHA-256 of a 256-bit secret).
import { hash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';

/**
 * OWASP Password Storage Cheat Sheet: scrypt with N = 2^17, r = 8, p = 1 (128 MiB and about half a second of one core
 * per hash). A stored hash carries its own parameters (`scrypt$N$r$p$salt$key`), so older hashes still verify and are
 * rehashed at the next sign-in (needsRehash).
 */
export const SCRYPT_PARAMETERS = { N: 2 ** 17, r: 8, p: 1, keylen: 32 } as const;
/** scrypt needs 128·N·r bytes; a stored hash asking for more than twice today's is refused, not computed. */
const SCRYPT_MAXMEM = 2 * 128 * SCRYPT_PARAMETERS.N * SCRYPT_PARAMETERS.r;
/** Hashes computed at once in this process; the rest queue (each holds 128 MiB and a libuv thread). */
export const PASSWORD_HASHES_AT_ONCE = 2;

let running = 0;
const queued: Array<() => void> = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= PASSWORD_HASHES_AT_ONCE) await new Promise<void>((resolve) => queued.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    queued.shift()?.();
  }
}

type ScryptParameters = { N: number; r: number; p: number };

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptParameters): Promise<Buffer> {
  return limited(
    () =>
      new Promise((resolve, reject) =>
        scryptCb(password, salt, keylen, { ...options, maxmem: SCRYPT_MAXMEM }, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  );
}

/** A hash of the password at `parameters` (today's unless given: tests make older hashes with it). */
export async function hashPassword(password: string, parameters: ScryptParameters = SCRYPT_PARAMETERS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT_PARAMETERS.keylen, parameters);
  return `scrypt$${parameters.N}$${parameters.r}$${parameters.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A fixed hash at today's parameters, verified for unknown emails so both failures take the same time. */
const DUMMY_HASH = `scrypt$${SCRYPT_PARAMETERS.N}$${SCRYPT_PARAMETERS.r}$${SCRYPT_PARAMETERS.p}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;

function parseHash(stored: string): (ScryptParameters & { salt: Buffer; key: Buffer }) | null {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  const parameters = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !key || !Object.values(parameters).every((value) => Number.isSafeInteger(value) && value > 0)) return null;
  return { ...parameters, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = parseHash(stored ?? DUMMY_HASH);
  if (!parsed || parsed.key.length === 0) return false;
  try {
    const actual = await scrypt(password, parsed.salt, parsed.key.length, parsed);
    return timingSafeEqual(actual, parsed.key) && stored !== null;
  } catch {
    // parameters scrypt refuses (or that need more memory than SCRYPT_MAXMEM): such a hash verifies nothing
    return false;
  }
}

/** A stored hash made with other parameters than today's: rehash it once the password is known to be right. */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  return (
    parsed === null ||
    parsed.N !== SCRYPT_PARAMETERS.N ||
    parsed.r !== SCRYPT_PARAMETERS.r ||
    parsed.p !== SCRYPT_PARAMETERS.p ||
    parsed.key.length !== SCRYPT_PARAMETERS.keylen
  );
}

// One-shot `hash` (not a Hash object per call): the token proof runs on every authenticated request.
export function sha256(value: string | Buffer): string {
  return hash('sha256', value, 'hex');
}

/** The SHA-256 digest as bytes, for comparing with a digest kept as bytes (safeEqualBytes). */
export function sha256Bytes(value: string | Buffer): Buffer {
  return hash('sha256', value, 'buffer');
}

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function safeEqualHex(a: string, b: string): boolean {
  return safeEqualBytes(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

export function safeEqualBytes(left: Buffer, right: Buffer): boolean {
  return left.length === right.length && timingSafeEqual(left, right);
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
