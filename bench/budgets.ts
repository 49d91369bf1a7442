/** The budgets of docs/performance.md "How each figure is taken", each checked as one PASS/FAIL line. */
import { listIndex } from '#lib/tables.ts';
import type { measureBodies, measureLoadTimes, measureWarm } from './functions.ts';
import type {
  measureEventPath,
  measureFairness,
  measureListOverHttp,
  measureLowStock,
  measureRush,
  measureWebhookDelays,
} from './served.ts';
import type { TrimSaving } from './trims.ts';
import type { measureWriteCost } from './write-cost.ts';

/**
 * The limits: KB ({@link bytesPerKb}), ratios, MB, share of the total, ms, s. Linear: time grows at most
 * `growthSlack` x the entries. The event path: the import of `eventPathImport.rows` with it at most
 * `eventPathImport.seconds` (another number of rows: in proportion); absolute, as the event path's work needs
 * more than 2 cores to keep a ratio to the import without it
 * (docs/performance.md "The machine's CPU per imported row, 2026-11-28 (morning)").
 */
export const budgets = {
  bundleKb: 300,
  loadRatio: 1.0,
  warmRatio: 1.1,
  listRatio: 1.3,
  growthSlack: 1.5,
  listMemoryGrowthMb: 32,
  firstByteShare: 0.05,
  bodyCostGrowth: 5,
  webhookDelayMs: 5000,
  eventPathImport: { rows: 200000, seconds: 300 },
  backlogListMemoryGrowthMb: 100,
} as const;

/** Bytes in the budgets' KB: a bundle's KB is its size / 1024, in the bench and in the tests alike. */
export const bytesPerKb = 1024;

/** A run's figures, each part empty until measured (load times: the first is the baseline). */
export const runFigures = () => ({
  bundles: [] as { name: string; kb: number }[],
  loads: [] as Awaited<ReturnType<typeof measureLoadTimes>>,
  warm: [] as Awaited<ReturnType<typeof measureWarm>>,
  lists: [] as Awaited<ReturnType<typeof measureListOverHttp>>,
  lowStock: undefined as Awaited<ReturnType<typeof measureLowStock>> | undefined,
  rush: undefined as Awaited<ReturnType<typeof measureRush>> | undefined,
  bodies: [] as Awaited<ReturnType<typeof measureBodies>>,
  webhooks: [] as Awaited<ReturnType<typeof measureWebhookDelays>>[],
  fairness: [] as Awaited<ReturnType<typeof measureFairness>>[],
  eventPath: [] as Awaited<ReturnType<typeof measureEventPath>>[],
  trims: [] as TrimSaving[],
  writeCost: {} as Partial<Record<string, Awaited<ReturnType<typeof measureWriteCost>>>>,
});

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** Checks every budget against `run`: per budget its name, whether it passes, the measured figure and the limit. */
export function checkBudgets(run: ReturnType<typeof runFigures>) {
  const checks: { name: string; pass: boolean; detail: string }[] = [];
  const check = (name: string, pass: boolean, detail: string) => checks.push({ name, pass, detail });
  /** `ratio` of `what` at most `limit`. */
  const ratio = (name: string, what: string, value: number, limit: number) =>
    check(name, value <= limit, `${what} = ${fixed(value)} <= ${limit}`);
  for (const { hanging, changes, delivered, p99Ms } of run.webhooks) {
    const name = `healthy subscriber's deliveries ${hanging ? 'beside a hanging endpoint' : 'alone'}`;
    const detail = `${delivered} of ${changes} delivered, p99 ${p99Ms} ms <= ${budgets.webhookDelayMs} ms`;
    check(name, delivered === changes && p99Ms <= budgets.webhookDelayMs, detail);
  }
  for (const { name, kb } of run.bundles)
    check(`${name} bundle size`, kb <= budgets.bundleKb, `${fixed(kb, 1)} KB <= ${budgets.bundleKb} KB`);
  const [baseline = { cpuMs: Number.NaN, wallMs: Number.NaN }, ...functions] = run.loads;
  for (const { name, cpuMs, wallMs } of functions) {
    const wall = `(wall clock ${fixed(wallMs / baseline.wallMs)})`;
    const what = `CPU ${fixed(cpuMs)} ms / baseline ${fixed(baseline.cpuMs)} ms ${wall}`;
    ratio(`${name} load time`, what, cpuMs / baseline.cpuMs, budgets.loadRatio);
  }
  for (const { name, bare, handlerMs, bareMs, requests, bareRequests, socketsPer100 } of run.warm) {
    const what = `p50 ${fixed(handlerMs, 3)} ms / ${bare} ${fixed(bareMs, 3)} ms`;
    ratio(`${name} warm overhead`, what, handlerMs / bareMs, budgets.warmRatio);
    const [expected, sockets] = name === 'listInventory' ? [bareRequests, listIndex.shards] : [1, 1];
    check(`${name} requests`, requests === expected && requests >= 1, `${requests} == ${expected}`);
    const perHundred = `${socketsPer100} connection(s) per 100 <= ${sockets}`;
    check(`${name} keep-alive`, socketsPer100 <= sockets, perHundred);
  }
  for (const [i, { entries, totalMs, rawMs }] of run.lists.entries()) {
    const what = `${fixed(totalMs, 1)} ms over HTTP / raw ${fixed(rawMs, 1)} ms`;
    ratio(`list ${entries} time`, what, totalMs / rawMs, budgets.listRatio);
    const previous = run.lists[i - 1];
    if (!previous) continue;
    const [growth, time] = [entries / previous.entries, totalMs / previous.totalMs];
    const limit = `x${fixed(growth * budgets.growthSlack, 1)}`;
    const detail = `x${fixed(growth, 0)} entries: time x${fixed(time, 1)} <= ${limit}`;
    check(`list ${previous.entries} -> ${entries} linear`, time <= growth * budgets.growthSlack, detail);
  }
  // Linear: CPU per KB from 64 KB to 5.9 MB grows by memory effects only (a quadratic step would grow x94).
  for (const { operation, kind, usPerKb } of run.bodies) {
    const growth = (usPerKb.at(-1) ?? Number.NaN) / (usPerKb[1] ?? Number.NaN);
    const name = `${operation} ${kind} body linear`;
    ratio(name, 'CPU per KB at 5.9 MB / at 64 KB', growth, budgets.bodyCostGrowth);
  }
  const [smallest, largest] = [run.lists[0], run.lists.at(-1)];
  if (smallest && largest && largest !== smallest) {
    // The process's own memory (RssAnon), not the table files LevelDB maps: docs/architecture.md "Local API memory".
    const [from, to] = [smallest, largest].map((size) => `+${fixed(size.peakAnonMb, 1)} MB`);
    const growth = largest.peakAnonMb - smallest.peakAnonMb;
    const whole = `(whole RSS +${fixed(smallest.peakRssMb, 1)} -> +${fixed(largest.peakRssMb, 1)} MB)`;
    const limit = `${fixed(growth, 1)} MB <= ${budgets.listMemoryGrowthMb} MB ${whole}`;
    const name = `list memory ${smallest.entries} -> ${largest.entries}`;
    check(name, growth <= budgets.listMemoryGrowthMb, `server peak anonymous RSS ${from} -> ${to}: ${limit}`);
    const share = largest.firstByteMs / largest.totalMs;
    const what = `${fixed(largest.firstByteMs, 1)} ms of ${fixed(largest.totalMs, 0)} ms`;
    const percent = `${fixed(share * 100, 1)} % <= ${budgets.firstByteShare * 100} %`;
    check(`list ${largest.entries} first byte`, share <= budgets.firstByteShare, `${what} = ${percent}`);
  }
  for (const { entries, secondsOn, peakAnonMb, peakRssMb } of run.eventPath) {
    const { rows, seconds } = budgets.eventPathImport;
    const limit = (seconds * entries) / rows;
    const detail = `${fixed(secondsOn, 1)} s <= ${fixed(limit, 1)} s (${seconds} s per ${rows} rows)`;
    check(`import ${entries} with the event path`, secondsOn <= limit, detail);
    const growth = `+${fixed(peakAnonMb, 1)} MB <= ${budgets.backlogListMemoryGrowthMb} MB`;
    const memory = `server peak anonymous RSS ${growth} (whole RSS +${fixed(peakRssMb, 1)} MB)`;
    check(
      `list ${entries} memory beside the backlog`,
      peakAnonMb <= budgets.backlogListMemoryGrowthMb,
      memory,
    );
  }
  return checks;
}
