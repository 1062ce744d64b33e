/** Index of the first cumulative weight above u (binary search; cumulative ends at 1). */
export function pick(cumulative: Float64Array, u: number): number {
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (u < cumulative[middle]!) high = middle;
    else low = middle + 1;
  }
  return low;
}
