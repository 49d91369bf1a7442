/**
 * The budgets of the README's Performance section, checked against a run's figures. Each budget is one PASS/FAIL line; `npm run bench`
 * exits non-zero when any fails, so it can gate a merge.
 *
 * - bundle size: every function's minified JavaScript <= {@link budgets.bundleKb} KB (1 KB = 1,024 bytes;
 *   the source map is not loaded unless `--enable-source-maps`, and is reported apart);
 * - load time: every function's median import CPU time <= {@link budgets.loadRatio} x the baseline's. The
 *   baseline is "the naive SDK client alone": bench/baseline-handler.ts bundled with the same esbuild
 *   settings as the functions but without the service's trims (the `alias` entries of infra/bundling.ts), so
 *   the budget asks that a function with all its middleware load no slower than a bare client bundled
 *   naively. The ratio to the trimmed baseline (the same handler with the trims) is printed beside it, for
 *   information only. CPU time, not wall clock: on a shared 2-core machine other processes inflate
 *   wall-clock samples at random, while the CPU the import needs is what the bundle controls; both are
 *   reported;
 * - warm overhead: every handler's p50 <= {@link budgets.warmRatio} x the p50 of the bare SDK call it wraps;
 * - DynamoDB requests: updateInventory and the authorizer exactly 1; listInventory as many Queries as the
 *   raw sorted read of the same table;
 * - list over HTTP (list-http.ts): time <= {@link budgets.listRatio} x the raw sorted read's at every
 *   size; linear: from one size to the next, time grows at most {@link budgets.growthSlack} x the growth in
 *   entries; peak memory of the server grows at most {@link budgets.listMemoryGrowthMb} MB from the smallest
 *   size to the largest; time to first byte at most {@link budgets.firstByteShare} of the total at the largest;
 * - keep-alive: at most 1 connection opened per 100 invocations of each function (listInventory: one per
 *   shard of the list index, whose Queries run at once).
 */
import { listIndex } from '#lib/inventory/list-index.ts';
import type { BuiltBundle } from './bundles.ts';
import type { ListResult } from './list-http.ts';
import type { LoadTime } from './load-time.ts';
import type { WarmResult } from './warm.ts';

/** The limits. */
export const budgets = {
  bundleKb: 250,
  loadRatio: 1.0,
  warmRatio: 1.1,
  listRatio: 1.3,
  growthSlack: 1.5,
  listMemoryGrowthMb: 64,
  firstByteShare: 0.05,
  socketsPer100: 1,
} as const;

/** One checked budget. */
export interface BudgetCheck {
  name: string;
  pass: boolean;
  /** The measured figure and the limit, in words. */
  detail: string;
}

/** What the budgets are checked against (the parts of a run that are present). */
export interface RunFigures {
  bundles: BuiltBundle[];
  /** The budget's baseline (naive: no trims). */
  baselineName: string;
  /** The informational baseline (the same handler with the trims); not a function either. */
  trimmedBaselineName?: string;
  /** Load times as deployed (`--enable-source-maps`). */
  loadTimes?: LoadTime[];
  warm?: WarmResult[];
  lists?: ListResult[];
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** Checks every budget whose figures are present. */
export function checkBudgets(run: RunFigures): BudgetCheck[] {
  const checks: BudgetCheck[] = [];
  const check = (name: string, pass: boolean, detail: string) => checks.push({ name, pass, detail });
  const isBaseline = (name: string) => name === run.baselineName || name === run.trimmedBaselineName;
  const functions = run.bundles.filter((b) => !isBaseline(b.name));

  for (const bundle of functions) {
    const sizeKb = bundle.jsBytes / 1024;
    check(
      `${bundle.name} bundle size`,
      sizeKb <= budgets.bundleKb,
      `${fixed(sizeKb, 1)} KB <= ${budgets.bundleKb} KB`,
    );
  }

  const baseline = run.loadTimes?.find((l) => l.name === run.baselineName);
  const trimmedBaseline = run.loadTimes?.find((l) => l.name === run.trimmedBaselineName);
  for (const load of run.loadTimes ?? []) {
    if (!baseline || isBaseline(load.name)) continue;
    const ratio = load.importCpu.p50 / baseline.importCpu.p50;
    const informational = trimmedBaseline
      ? `; vs the trimmed baseline, for information: ${fixed(load.importCpu.p50 / trimmedBaseline.importCpu.p50)}`
      : '';
    check(
      `${load.name} load time`,
      ratio <= budgets.loadRatio,
      `median CPU ${fixed(load.importCpu.p50)} ms / naive SDK client alone (baseline without the trims) ` +
        `${fixed(baseline.importCpu.p50)} ms = ${fixed(ratio)} <= ${budgets.loadRatio}` +
        ` (wall clock ${fixed(load.import.p50 / baseline.import.p50)}${informational})`,
    );
  }

  for (const warm of run.warm ?? []) {
    const ratio = warm.handlerMs.p50 / warm.bareMs.p50;
    check(
      `${warm.name} warm overhead`,
      ratio <= budgets.warmRatio,
      `p50 ${fixed(warm.handlerMs.p50, 3)} ms / ${warm.bare} ${fixed(warm.bareMs.p50, 3)} ms = ${fixed(ratio)} <= ${budgets.warmRatio}`,
    );
    if (warm.name === 'listInventory') {
      check(
        'listInventory requests (demo table)',
        warm.handlerDb.requests === warm.bareDb.requests && warm.handlerDb.requests >= 1,
        `${warm.handlerDb.requests} Query request(s), raw sorted read ${warm.bareDb.requests}`,
      );
    } else {
      check(
        `${warm.name} requests`,
        warm.handlerDb.requests === 1,
        `${warm.handlerDb.requests} request(s) == 1`,
      );
    }
    // A list sends one Query per shard at once: it opens that many connections once, then reuses them.
    const sockets = warm.name === 'listInventory' ? listIndex.shards : budgets.socketsPer100;
    check(
      `${warm.name} keep-alive`,
      warm.socketsPer100 <= sockets,
      `${warm.socketsPer100} connection(s) opened in 100 invocations <= ${sockets}`,
    );
  }

  const lists = run.lists ?? [];
  for (const [i, step] of lists.entries()) {
    const ratio = step.totalMs / step.rawMs;
    check(
      `list ${step.entries} time`,
      ratio <= budgets.listRatio,
      `${fixed(step.totalMs, 1)} ms over HTTP / raw sorted read ${fixed(step.rawMs, 1)} ms = ${fixed(ratio)} <= ${budgets.listRatio}`,
    );
    const previous = lists[i - 1];
    if (!previous) continue;
    const entriesGrowth = step.entries / previous.entries;
    const timeGrowth = step.totalMs / previous.totalMs;
    check(
      `list ${previous.entries} -> ${step.entries} linear`,
      timeGrowth <= entriesGrowth * budgets.growthSlack,
      `x${fixed(entriesGrowth, 0)} entries: time x${fixed(timeGrowth, 1)} <= x${fixed(entriesGrowth * budgets.growthSlack, 1)}`,
    );
  }
  const [smallest, largest] = [lists[0], lists.at(-1)];
  if (smallest && largest && largest !== smallest) {
    const growth = largest.peakMemoryMb - smallest.peakMemoryMb;
    check(
      `list memory ${smallest.entries} -> ${largest.entries}`,
      growth <= budgets.listMemoryGrowthMb,
      `peak +${fixed(smallest.peakMemoryMb, 1)} MB -> +${fixed(largest.peakMemoryMb, 1)} MB: ${fixed(growth, 1)} MB <= ${budgets.listMemoryGrowthMb} MB`,
    );
    const share = largest.firstByteMs / largest.totalMs;
    check(
      `list ${largest.entries} first byte`,
      share <= budgets.firstByteShare,
      `${fixed(largest.firstByteMs, 1)} ms of ${fixed(largest.totalMs, 0)} ms = ${fixed(share * 100, 1)} % <= ${budgets.firstByteShare * 100} %`,
    );
  }
  return checks;
}
