/**
 * Summary statistics and timing helpers of the benchmark. Durations are milliseconds throughout.
 */

/** The `q`-quantile (0..1) of `values` by the nearest-rank method; NaN for an empty list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median, p90 and p99 of a list of samples (same unit as the samples), with the sample count. */
export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
}

/** The {@link Summary} of `values`. */
export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
  };
}

/** Milliseconds elapsed while awaiting `work`, with its result. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const start = performance.now();
  const result = await work();
  return { ms: performance.now() - start, result };
}

/** `value` rounded to `digits` decimals (for the report and results.json). */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Kibibytes (1 KB = 1,024 bytes, the unit of every size in this benchmark) from bytes, 1 decimal. */
export function kb(bytes: number): number {
  return round(bytes / 1024, 1);
}
