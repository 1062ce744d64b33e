// Signed export links: a token bound to a run, its organization and an expiry, signed with HMAC-SHA256
// under a key derived (HKDF-SHA256) from the session secret, so the download needs no bearer credential. Tokens are not
// stored: the signature is the proof, the expiry keeps a leaked link short-lived.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How long an export link works. */
export const EXPORT_LINK_LIFETIME_SECONDS = 15 * 60;
const KEY_INFO = 'crucible/run-export-link/v1';
const TOKEN_LENGTH_MAX = 512;

export type ExportClaims = { run_id: string; org_id: string; expires_at_seconds: number };

function key(secret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_INFO, 32));
}

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', key(secret)).update(payload).digest();
}

export function signExportToken(secret: Buffer, claims: ExportClaims): string {
  const payload = Buffer.from(JSON.stringify({ r: claims.run_id, o: claims.org_id, e: claims.expires_at_seconds })).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The claims of a genuine, unexpired token; otherwise why not ('invalid' or 'expired'). */
export function verifyExportToken(
  secret: Buffer,
  token: string,
  now_ms = Date.now(),
): { ok: true; claims: ExportClaims } | { ok: false; reason: 'invalid' | 'expired' } {
  if (token.length > TOKEN_LENGTH_MAX) return { ok: false, reason: 'invalid' };
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return { ok: false, reason: 'invalid' };
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let parsed: { r?: unknown; o?: unknown; e?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (typeof parsed.r !== 'string' || typeof parsed.o !== 'string' || typeof parsed.e !== 'number') return { ok: false, reason: 'invalid' };
  if (parsed.e * 1000 <= now_ms) return { ok: false, reason: 'expired' };
  return { ok: true, claims: { run_id: parsed.r, org_id: parsed.o, expires_at_seconds: parsed.e } };
}
