/** Order statistics of the bench's samples. */

/** The `q` quantile (0..1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
