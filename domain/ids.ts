// Ids carry a type prefix (STYLE.md: from Stripe's API): org_, usr_, proj_, tok_, key_, txn_, run_, ...
// The random part is 16 bytes of Crockford base32; globalThis.crypto keeps this module free of I/O imports.

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = [
  'req', 'usr', 'org', 'mem', 'tok', 'ses', 'proj', 'idem', 'acct', 'txn', 'key', 'use', 'src', 'ext', 'drf', 'int',
  'plan', 'rev', 'lit', 'wrev', 'run', 'evt', 'exp', 'sess', 'inst', 'prog', 'enr', 'code', 'pi', 'whk',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

export function newId(prefix: IdPrefix): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return `${prefix}_${out}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1 && id.length <= 64;
}
