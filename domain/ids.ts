// Ids carry a type prefix (STYLE.md: from Stripe's API): org_, usr_, proj_, tok_, key_, txn_, run_, ...
// The random part is 16 bytes of Crockford base32; globalThis.crypto keeps this module free of I/O imports.

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = [
  'req',
  'usr',
  'org',
  'mem',
  'tok',
  'ses',
  'proj',
  'idem',
  'acct',
  'txn',
  'key',
  'use',
  'src',
  'ext',
  'drf',
  'int',
  'plan',
  'rev',
  'lit',
  'wrev',
  'run',
  'evt',
  'exp',
  'sess',
  'inst',
  'prog',
  'enr',
  'code',
  'pi',
  'whk',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

/** Random bytes are drawn this many ids at a time: one getRandomValues call per id was measurable per request. */
const IDS_PER_DRAW = 256;
const drawn = new Uint8Array(16 * IDS_PER_DRAW);
let drawn_used = IDS_PER_DRAW;

export function newId(prefix: IdPrefix): string {
  if (drawn_used === IDS_PER_DRAW) {
    globalThis.crypto.getRandomValues(drawn);
    drawn_used = 0;
  }
  const bytes = drawn.subarray(drawn_used * 16, ++drawn_used * 16);
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
