// Seedable random numbers: xoshiro128** streams seeded through splitmix32.
// One stream per (world seed, replication, random source name), so a baseline and its treatments draw the same numbers
// from each source in the same replication (common random numbers), and replications are independent of each other.

function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

/** FNV-1a over the UTF-16 code units of a source name. */
export function hashName(name: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < name.length; index++) {
    hash ^= name.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const TWO_POW_MINUS_32 = 2 ** -32;

// The state words are declared, not defined as undefined first: their first write is a number, so the JIT keeps them as
// number fields and a draw stores in place instead of allocating a new number for state outside the small-integer range.
export class RandomStream {
  declare s0: number;
  declare s1: number;
  declare s2: number;
  declare s3: number;

  constructor(seed: number, replicationIndex: number, source: string) {
    let state = (seed ^ Math.imul(replicationIndex + 1, 0x27d4eb2d) ^ hashName(source)) | 0;
    // splitmix32 over a key mixing all three parts; xoshiro state must not be all zero (splitmix never yields four zeros in a row).
    let word: number;
    [state, word] = splitmix32(state ^ hashName(`${seed}:${replicationIndex}`));
    this.s0 = word | 0;
    [state, word] = splitmix32(state);
    this.s1 = word | 0;
    [state, word] = splitmix32(state);
    this.s2 = word | 0;
    [state, word] = splitmix32(state);
    this.s3 = word | 0;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Next 32-bit output of xoshiro128**, as an unsigned integer. */
  nextUint32(): number {
    const s1 = this.s1;
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= s1;
    this.s1 = s1 ^ this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /**
   * Uniform on the open interval (0, 1): never 0, so log(u) is finite. The xoshiro128** step of nextUint32 is written
   * out here (rotations inline) so this hot call stays one small function the JIT inlines into its callers.
   */
  uniform(): number {
    const s1 = this.s1;
    const scrambled = Math.imul(s1, 5);
    const result = Math.imul((scrambled << 7) | (scrambled >>> 25), 9) >>> 0;
    const t = s1 << 9;
    const s2 = this.s2 ^ this.s0;
    const s3 = this.s3 ^ s1;
    this.s1 = s1 ^ s2;
    this.s0 ^= s3;
    this.s2 = s2 ^ t;
    this.s3 = (s3 << 11) | (s3 >>> 21);
    return (result + 0.5) * TWO_POW_MINUS_32;
  }

  exponential(mean: number): number {
    return -mean * Math.log(this.uniform());
  }

  /** Standard normal by Box-Muller (the second variate is discarded to keep one draw pattern per call). */
  normal(): number {
    const u1 = this.uniform();
    const u2 = this.uniform();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** Gamma(shape, scale) by Marsaglia and Tsang; shape < 1 is boosted by U^(1/shape). */
  gamma(shape: number, scale: number): number {
    if (shape < 1) return this.gamma(shape + 1, scale) * this.uniform() ** (1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (let attempt = 0; attempt < 1000; attempt++) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniform();
      if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
    }
    return shape * scale; // unreachable in practice: the acceptance rate is above 95%
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
