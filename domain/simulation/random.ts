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

// ---- exponential draws by the ziggurat (Marsaglia & Tsang 2000, "The ziggurat method for generating random variables",
// J. Stat. Softw. 5(8), the 256-layer exponential ziggurat) ----
// The density e^-x is covered by 256 layers of equal area: layer 0 is the rectangle [0, r] x [0, e^-r] with the tail
// beyond r (area (r + 1) e^-r), layers 1..255 are the boxes [0, x_i] x [e^-x_i, e^-x_(i-1)] with x_255 = r and x_0 = 0.
// A draw picks a layer with the low 8 bits of one 32-bit output and a point of its box with the high 24 bits; a point
// inside the next layer's width is under the curve (about 97.8 % of draws: no logarithm), otherwise the wedge is decided
// by e^-x against a uniform height, and layer 0's points beyond r go to the tail, r - log(U) (memoryless). The layer and
// the point use separate bits (the original reused the layer bits in the point; Doornik 2005). The method is exact: the
// result is exponential up to the grid of 2^24 midpoints a layer's width, as the inverse -log(U) is up to U's 2^-32 grid.
/** r: the right edge of the rectangles and the start of the tail (Marsaglia & Tsang 2000, 256 layers: 7.69711747013104972, the same double) */
const ZIGGURAT_R = 7.69711747013105;
/** v: the area of each layer */
const ZIGGURAT_AREA = 3.949659822581572e-3;
const ZIGGURAT_LAYERS = 256;
const ZIGGURAT_POSITIONS = 2 ** 24;
/** points a draw may try before it is a bug: each misses with chance about 0.02, so 64 misses in a row never happen */
const ZIGGURAT_ATTEMPTS_MAX = 64;
/** the width of a layer's box over 2^24 (the point is (position + 0.5) times it), interleaved with the count of positions under the curve for sure */
const ZIGGURAT_WIDTH_AND_FAST_LIMIT = new Float64Array(2 * ZIGGURAT_LAYERS);
/** e^-x_i: the bottom of layer i's box, and the top of layer i + 1's (index 0 holds the top of layer 1) */
const ZIGGURAT_HEIGHT = new Float64Array(ZIGGURAT_LAYERS);

function buildZiggurat(): void {
  const edge = new Float64Array(ZIGGURAT_LAYERS); // x_i, the right edge of layer i's box
  edge[ZIGGURAT_LAYERS - 1] = ZIGGURAT_R;
  for (let layer = ZIGGURAT_LAYERS - 1; layer > 1; layer--) edge[layer - 1] = -Math.log(ZIGGURAT_AREA / edge[layer]! + Math.exp(-edge[layer]!));
  for (let layer = 1; layer < ZIGGURAT_LAYERS; layer++) ZIGGURAT_HEIGHT[layer] = Math.exp(-edge[layer]!);
  // The top of layer 1 is e^-x_1 + v / x_1 (so its box has area v too); it must not fall below the density's peak of 1.
  ZIGGURAT_HEIGHT[0] = ZIGGURAT_HEIGHT[1]! + ZIGGURAT_AREA / edge[1]!;
  if (!(ZIGGURAT_HEIGHT[0]! >= 1 && ZIGGURAT_HEIGHT[0]! < 1 + 1e-9)) throw new Error(`ziggurat: the top layer does not close (height ${ZIGGURAT_HEIGHT[0]})`);
  for (let layer = 0; layer < ZIGGURAT_LAYERS; layer++) {
    // Layer 0 spans [0, r + 1] (the tail's area e^-r is a rectangle of width 1 on e^-r); a point is sure below r, and
    // below x_(i-1) in layer i (none in layer 1, whose x_0 is 0).
    const width = (layer === 0 ? ZIGGURAT_R + 1 : edge[layer]!) / ZIGGURAT_POSITIONS;
    const sure = layer === 0 ? ZIGGURAT_R : layer === 1 ? 0 : edge[layer - 1]!;
    let limit = Math.max(0, Math.floor(sure / width - 0.5));
    while ((limit + 0.5) * width < sure) limit++;
    while (limit > 0 && (limit - 0.5) * width >= sure) limit--;
    ZIGGURAT_WIDTH_AND_FAST_LIMIT[2 * layer] = width;
    ZIGGURAT_WIDTH_AND_FAST_LIMIT[2 * layer + 1] = limit;
  }
}
buildZiggurat();

/** For tests: the share of first words that miss the sure region (wedge or tail), and layer 0's share of first words beyond r. */
export function zigguratRareShares(): { rare: number; tail: number } {
  let sure = 0;
  for (let layer = 0; layer < ZIGGURAT_LAYERS; layer++) sure += ZIGGURAT_WIDTH_AND_FAST_LIMIT[2 * layer + 1]!;
  return { rare: 1 - sure / (ZIGGURAT_LAYERS * ZIGGURAT_POSITIONS), tail: (1 - ZIGGURAT_WIDTH_AND_FAST_LIMIT[1]! / ZIGGURAT_POSITIONS) / ZIGGURAT_LAYERS };
}
export const ZIGGURAT_TAIL_START = ZIGGURAT_R;

// The state words are declared, not defined as undefined first: their first write is a number, so the JIT keeps them as
// number fields and a draw stores in place instead of allocating a new number for state outside the small-integer range.
export class RandomStream {
  declare s0: number;
  declare s1: number;
  declare s2: number;
  declare s3: number;
  /** The ziggurat's rare draw, handed back in a field (see standardExponential). */
  declare rareDraw: number;

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
    this.rareDraw = Number.NaN; // a double from the first write, so the field holds doubles in place
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
    return mean * this.standardExponential();
  }

  /**
   * Exponential with mean 1, by the ziggurat above: one 32-bit output and no logarithm for about 97.8 % of draws. The
   * xoshiro128** step is written out as in uniform(), so this hot call stays one small function the JIT inlines.
   */
  standardExponential(): number {
    const s1 = this.s1;
    const scrambled = Math.imul(s1, 5);
    const word = Math.imul((scrambled << 7) | (scrambled >>> 25), 9);
    const t = s1 << 9;
    const s2 = this.s2 ^ this.s0;
    const s3 = this.s3 ^ s1;
    this.s1 = s1 ^ s2;
    this.s0 ^= s3;
    this.s2 = s2 ^ t;
    this.s3 = (s3 << 11) | (s3 >>> 21);
    const layer = (word & 0xff) << 1;
    const position = word >>> 8;
    if (position < ZIGGURAT_WIDTH_AND_FAST_LIMIT[layer + 1]!) return (position + 0.5) * ZIGGURAT_WIDTH_AND_FAST_LIMIT[layer]!;
    // The rare case hands its draw back in a field: a double returned by a call the JIT does not inline is boxed, and
    // merged with the common case's double it made the JIT box every draw (a heap number a draw, a scavenge per 0.6 M).
    this.standardExponentialRare(layer >> 1, position);
    return this.rareDraw;
  }

  /** The ziggurat's rare cases (out of line), into rareDraw: layer 0 beyond r is the tail; otherwise the wedge, and a new point if it misses. */
  standardExponentialRare(firstLayer: number, firstPosition: number): void {
    let layer = firstLayer;
    let position = firstPosition;
    for (let attempt = 0; attempt < ZIGGURAT_ATTEMPTS_MAX; attempt++) {
      if (layer === 0) {
        this.rareDraw = ZIGGURAT_R - Math.log(this.uniform());
        return;
      }
      const x = (position + 0.5) * ZIGGURAT_WIDTH_AND_FAST_LIMIT[2 * layer]!;
      const bottom = ZIGGURAT_HEIGHT[layer]!;
      if (bottom + this.uniform() * (ZIGGURAT_HEIGHT[layer - 1]! - bottom) < Math.exp(-x)) {
        this.rareDraw = x;
        return;
      }
      const word = this.nextUint32();
      layer = word & 0xff;
      position = word >>> 8;
      if (position < ZIGGURAT_WIDTH_AND_FAST_LIMIT[2 * layer + 1]!) {
        this.rareDraw = (position + 0.5) * ZIGGURAT_WIDTH_AND_FAST_LIMIT[2 * layer]!;
        return;
      }
    }
    throw new Error(`ziggurat: no exponential draw in ${ZIGGURAT_ATTEMPTS_MAX} attempts (each misses with chance about 0.02)`);
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
