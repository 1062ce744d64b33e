// The normal distribution for durations: its CDF, its quantile and the moments of its truncated and clamped forms
// (docs/simulation.md, Distributions). A draw takes one uniform through the quantile, so each draw uses exactly one
// number of its stream and baseline/treatment pairs stay common-random-number pairs.

/** erfc(x) (Numerical Recipes' Chebyshev fit, fractional error below 1.2e-7 everywhere). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const value = t * Math.exp(poly);
  return x >= 0 ? value : 2 - value;
}

/** P(Z <= z) for a standard normal Z. */
export function normalCdf(z: number): number {
  if (z === Number.NEGATIVE_INFINITY) return 0;
  if (z === Number.POSITIVE_INFINITY) return 1;
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** The standard normal density. */
export function normalPdf(z: number): number {
  return Number.isFinite(z) ? Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI) : 0;
}

// Acklam's rational approximation of the standard normal quantile (relative error below 1.2e-9).
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

/** z with P(Z <= z) = p, for p in (0, 1). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  }
  if (p > 1 - P_LOW) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) / (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1)
  );
}

/**
 * The compiled parameters of a bounded normal, in one array: [mean, sd, min, max, low, high, mirrored, clamp]. For a
 * truncated normal a uniform u maps to the quantile of low + u (high - low), where low and high are the CDF at the
 * bounds; when the whole interval lies above the mean the upper tail is used (mirrored), so a far tail keeps its
 * precision. A clamped normal maps u to the full normal and sets a draw outside the bounds to the bound.
 */
export function boundedNormal(mean: number, sd: number, min: number, max: number, clamp: boolean): Float64Array {
  const alpha = sd > 0 ? (min - mean) / sd : Number.NEGATIVE_INFINITY;
  const beta = sd > 0 ? (max - mean) / sd : Number.POSITIVE_INFINITY;
  const mirrored = !clamp && alpha > 0;
  const low = mirrored ? normalCdf(-beta) : normalCdf(alpha);
  const high = mirrored ? normalCdf(-alpha) : normalCdf(beta);
  return Float64Array.of(mean, sd, min, max, low, high, mirrored ? 1 : 0, clamp ? 1 : 0);
}

/** One draw of a bounded normal (see boundedNormal) from a uniform u in (0, 1). */
export function boundedNormalDraw(parameters: Float64Array, u: number): number {
  const mean = parameters[0]!;
  const sd = parameters[1]!;
  const min = parameters[2]!;
  const max = parameters[3]!;
  if (!(sd > 0)) return Math.min(max, Math.max(min, mean));
  if (parameters[7] === 1) return Math.min(max, Math.max(min, mean + sd * normalQuantile(u)));
  const low = parameters[4]!;
  const z = normalQuantile(low + u * (parameters[5]! - low));
  const draw = parameters[6] === 1 ? mean - sd * z : mean + sd * z;
  return Math.min(max, Math.max(min, draw));
}

/** Mean and variance of N(mean, sd²) truncated to [min, max] (conditioned on it) or clamped to it (values outside set to the bound). */
export function boundedNormalMoments(mean: number, sd: number, min: number, max: number, clamp: boolean): { mean: number; variance: number } {
  if (!(sd > 0)) {
    const value = Math.min(max, Math.max(min, mean));
    return { mean: value, variance: 0 };
  }
  const alpha = (min - mean) / sd;
  const beta = (max - mean) / sd;
  const phiA = normalPdf(alpha);
  const phiB = normalPdf(beta);
  const aPhiA = Number.isFinite(alpha) ? alpha * phiA : 0;
  const bPhiB = Number.isFinite(beta) ? beta * phiB : 0;
  const mass = Math.max(1e-300, normalCdf(beta) - normalCdf(alpha));
  if (!clamp) {
    const shift = (phiA - phiB) / mass;
    return { mean: mean + sd * shift, variance: sd * sd * (1 + (aPhiA - bPhiB) / mass - shift * shift) };
  }
  // Clamped: the bounds carry the tail masses; inside, the normal's partial moments.
  const below = normalCdf(alpha);
  const above = 1 - normalCdf(beta);
  const insideZ = phiA - phiB; // E[Z; alpha < Z < beta]
  const insideZ2 = mass + aPhiA - bPhiB; // E[Z²; alpha < Z < beta]
  const first = (Number.isFinite(alpha) ? below * alpha : 0) + insideZ + (Number.isFinite(beta) ? above * beta : 0);
  const second = (Number.isFinite(alpha) ? below * alpha * alpha : 0) + insideZ2 + (Number.isFinite(beta) ? above * beta * beta : 0);
  return { mean: mean + sd * first, variance: sd * sd * (second - first * first) };
}
