// The exponential sampler (the ziggurat in domain/simulation/random.ts) against the exponential distribution. Seeds are
// fixed, so every check is deterministic; each bound is the sampling error of its statistic (4 standard errors, or the
// Kolmogorov-Smirnov critical value at the 1 % level), not a tolerance fitted to the numbers.
import { describe, expect, it } from 'vitest';
import { RandomStream, ZIGGURAT_TAIL_START, zigguratRareShares } from '../../domain/simulation/random.ts';

/** A stream that counts the 32-bit words the sampler's rare cases draw (the first word of a draw is drawn inline). */
class CountingStream extends RandomStream {
  declare extraWords: number;
  constructor(seed: number, replicationIndex: number, source: string) {
    super(seed, replicationIndex, source);
    this.extraWords = 0;
  }
  override uniform(): number {
    this.extraWords++;
    return super.uniform();
  }
  override nextUint32(): number {
    this.extraWords++;
    return super.nextUint32();
  }
}

function draws(stream: RandomStream, count: number): Float64Array {
  const values = new Float64Array(count);
  for (let index = 0; index < count; index++) values[index] = stream.standardExponential();
  return values;
}

describe('exponential draws (ziggurat)', () => {
  it('has mean 1 and variance 1 within 4 standard errors over 2,000,000 draws', () => {
    const count = 2_000_000;
    const values = draws(new RandomStream(20_001, 0, 'exponential:moments'), count);
    let sum = 0;
    for (const value of values) sum += value;
    const mean = sum / count;
    let squares = 0;
    for (const value of values) squares += (value - mean) ** 2;
    const variance = squares / (count - 1);
    // Exp(1): the mean's standard error is 1 / sqrt(n); the sample variance's is sqrt((mu_4 - sigma^4) / n) = sqrt(8 / n).
    expect(Math.abs(mean - 1)).toBeLessThan(4 / Math.sqrt(count));
    expect(Math.abs(variance - 1)).toBeLessThan(4 * Math.sqrt(8 / count));
    expect(values.every((value) => value > 0 && Number.isFinite(value))).toBe(true);
  });

  it('passes a Kolmogorov-Smirnov test against 1 - e^-x at the 1 % level (200,000 draws)', () => {
    const count = 200_000;
    const values = draws(new RandomStream(20_002, 0, 'exponential:ks'), count).sort();
    let statistic = 0;
    for (let index = 0; index < count; index++) {
      const cdf = 1 - Math.exp(-values[index]!);
      statistic = Math.max(statistic, (index + 1) / count - cdf, cdf - index / count);
    }
    expect(statistic).toBeLessThan(1.628 / Math.sqrt(count));
  });

  it('puts e^-5 and e^-10 of its mass beyond 5 and 10, within 4 standard errors (4,000,000 draws)', () => {
    const count = 4_000_000;
    const stream = new RandomStream(20_003, 0, 'exponential:tail');
    let beyondFive = 0;
    let beyondTen = 0;
    for (let index = 0; index < count; index++) {
      const value = stream.standardExponential();
      if (value > 5) beyondFive++;
      if (value > 10) beyondTen++;
    }
    for (const [observed, probability] of [
      [beyondFive, Math.exp(-5)],
      [beyondTen, Math.exp(-10)],
    ] as const)
      expect(Math.abs(observed - count * probability)).toBeLessThan(4 * Math.sqrt(count * probability * (1 - probability)));
  });

  it('gives the same draws for the same seed, replication and source, and other draws for another replication', () => {
    const first = draws(new RandomStream(7, 0, 'arrival:patients'), 1_000);
    expect(draws(new RandomStream(7, 0, 'arrival:patients'), 1_000)).toEqual(first);
    expect(draws(new RandomStream(7, 1, 'arrival:patients'), 1_000)).not.toEqual(first);
    const scaled = new RandomStream(7, 0, 'arrival:patients');
    expect(Array.from({ length: 1_000 }, () => scaled.exponential(2.5))).toEqual(Array.from(first, (value) => 2.5 * value));
  });

  it('takes the wedge and the tail as often as the tables say, and the tail only beyond r', () => {
    const count = 1_000_000;
    const stream = new CountingStream(20_004, 0, 'exponential:paths');
    let rare = 0;
    let rareInside = 0;
    let beyondTail = 0;
    for (let index = 0; index < count; index++) {
      const before = stream.extraWords;
      const value = stream.standardExponential();
      if (stream.extraWords > before) {
        rare++;
        if (value <= ZIGGURAT_TAIL_START) rareInside++;
      }
      if (value > ZIGGURAT_TAIL_START) {
        beyondTail++;
        expect(stream.extraWords).toBeGreaterThan(before); // only the tail case gives a value beyond r
      }
    }
    const shares = zigguratRareShares();
    const within = (observed: number, probability: number) =>
      expect(Math.abs(observed - count * probability)).toBeLessThan(4 * Math.sqrt(count * probability * (1 - probability)));
    within(rare, shares.rare); // first words outside the sure region: about 2.2 %
    within(beyondTail, Math.exp(-ZIGGURAT_TAIL_START)); // the tail: P(X > r) = e^-r, about 4.5e-4
    expect(rareInside).toBeGreaterThan(count * shares.rare * 0.9); // the wedge, decided by e^-x, does most of the rare work
    expect(beyondTail).toBeGreaterThan(0);
  });
});
