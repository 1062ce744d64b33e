// Exact stationary distributions of small Markov chains, the reference for simulation checks that have no closed form.

/** Stationary distribution of a finite continuous-time Markov chain from its generator (rates[i][j], i != j), by Gaussian elimination. */
export function stationary(states: number, rates: (from: number, to: number) => number): Float64Array {
  // Solve pi Q = 0 with sum(pi) = 1: the transposed system with the last equation replaced by the normalisation.
  const a = Array.from({ length: states }, () => new Float64Array(states + 1));
  for (let i = 0; i < states; i++) {
    let out = 0;
    for (let j = 0; j < states; j++) {
      if (i === j) continue;
      const rate = rates(i, j);
      out += rate;
      a[j]![i] = rate;
    }
    a[i]![i]! -= out;
  }
  for (let j = 0; j < states; j++) a[states - 1]![j] = 1;
  a[states - 1]![states] = 1;
  for (let column = 0; column < states; column++) {
    let pivot = column;
    for (let row = column + 1; row < states; row++) if (Math.abs(a[row]![column]!) > Math.abs(a[pivot]![column]!)) pivot = row;
    [a[column], a[pivot]] = [a[pivot]!, a[column]!];
    for (let row = 0; row < states; row++) {
      if (row === column) continue;
      const factor = a[row]![column]! / a[column]![column]!;
      if (factor === 0) continue;
      for (let k = column; k <= states; k++) a[row]![k]! -= factor * a[column]![k]!;
    }
  }
  return Float64Array.from(a.map((row, index) => row[states]! / row[index]!));
}
