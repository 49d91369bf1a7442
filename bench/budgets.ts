/** The budgets of docs/performance.md "How each figure is taken", each checked as one PASS/FAIL line. */
import { listIndex } from '#lib/tables.ts';
import type { BodyResult } from './bodies.ts';
import type { ListResult } from './list-http.ts';
import type { WarmResult } from './warm.ts';
import type { WebhookDelays } from './webhooks.ts';

/** The limits: KB (1024 bytes, {@link bytesPerKb}), ratios, MB, share of the total, ms. Linear: time grows at most `growthSlack` x the entries. */
export const budgets = {
  bundleKb: 250,
  loadRatio: 1.0,
  warmRatio: 1.1,
  listRatio: 1.3,
  growthSlack: 1.5,
  listMemoryGrowthMb: 32,
  firstByteShare: 0.05,
  bodyCostGrowth: 5,
  webhookDelayMs: 5000,
} as const;

/** Bytes in the budgets' KB: a bundle's KB is its size / 1024, in the bench and in the tests alike. */
export const bytesPerKb = 1024;

/** One checked budget: the measured figure and the limit in words. */
export interface BudgetCheck {
  name: string;
  pass: boolean;
  detail: string;
}

/** A run's figures (load times: the first is the baseline). */
export interface RunFigures {
  bundles: { name: string; kb: number }[];
  loads: { name: string; cpuMs: number; wallMs: number }[];
  warm: WarmResult[];
  lists: ListResult[];
  bodies: BodyResult[];
  webhooks: WebhookDelays[];
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** Checks every budget against `run`. */
export function checkBudgets({ bundles, loads, warm, lists, bodies, webhooks }: RunFigures): BudgetCheck[] {
  const checks: BudgetCheck[] = [];
  const check = (name: string, pass: boolean, detail: string) => checks.push({ name, pass, detail });
  for (const { hanging, changes, delivered, p99Ms } of webhooks)
    check(
      `healthy subscriber's deliveries ${hanging ? 'beside a hanging endpoint' : 'alone'}`,
      delivered === changes && p99Ms <= budgets.webhookDelayMs,
      `${delivered} of ${changes} delivered, p99 ${p99Ms} ms <= ${budgets.webhookDelayMs} ms`,
    );
  for (const { name, kb } of bundles)
    check(`${name} bundle size`, kb <= budgets.bundleKb, `${fixed(kb, 1)} KB <= ${budgets.bundleKb} KB`);

  const [baseline, ...functions] = loads;
  for (const load of baseline ? functions : []) {
    const ratio = load.cpuMs / (baseline?.cpuMs ?? Number.NaN);
    check(
      `${load.name} load time`,
      ratio <= budgets.loadRatio,
      `CPU ${fixed(load.cpuMs)} ms / baseline ${fixed(baseline?.cpuMs ?? 0)} ms = ${fixed(ratio)} <= ${budgets.loadRatio}` +
        ` (wall clock ${fixed(load.wallMs / (baseline?.wallMs ?? Number.NaN))})`,
    );
  }

  for (const w of warm) {
    const ratio = w.handlerMs / w.bareMs;
    check(
      `${w.name} warm overhead`,
      ratio <= budgets.warmRatio,
      `p50 ${fixed(w.handlerMs, 3)} ms / ${w.bare} ${fixed(w.bareMs, 3)} ms = ${fixed(ratio)} <= ${budgets.warmRatio}`,
    );
    const expected = w.name === 'listInventory' ? w.bareRequests : 1;
    check(`${w.name} requests`, w.requests === expected && w.requests >= 1, `${w.requests} == ${expected}`);
    const sockets = w.name === 'listInventory' ? listIndex.shards : 1;
    check(
      `${w.name} keep-alive`,
      w.socketsPer100 <= sockets,
      `${w.socketsPer100} connection(s) per 100 <= ${sockets}`,
    );
  }

  for (const [i, step] of lists.entries()) {
    const ratio = step.totalMs / step.rawMs;
    check(
      `list ${step.entries} time`,
      ratio <= budgets.listRatio,
      `${fixed(step.totalMs, 1)} ms over HTTP / raw ${fixed(step.rawMs, 1)} ms = ${fixed(ratio)} <= ${budgets.listRatio}`,
    );
    const previous = lists[i - 1];
    if (!previous) continue;
    const [entriesGrowth, timeGrowth] = [step.entries / previous.entries, step.totalMs / previous.totalMs];
    check(
      `list ${previous.entries} -> ${step.entries} linear`,
      timeGrowth <= entriesGrowth * budgets.growthSlack,
      `x${fixed(entriesGrowth, 0)} entries: time x${fixed(timeGrowth, 1)} <= x${fixed(entriesGrowth * budgets.growthSlack, 1)}`,
    );
  }
  // Linear: CPU per KB from 64 KB to 5.9 MB grows by memory effects only (a quadratic step would grow x94).
  for (const { operation, kind, usPerKb } of bodies) {
    const growth = (usPerKb.at(-1) ?? Number.NaN) / (usPerKb[1] ?? Number.NaN);
    const detail = `CPU per KB at 5.9 MB / at 64 KB = ${fixed(growth)} <= ${budgets.bodyCostGrowth}`;
    check(`${operation} ${kind} body linear`, growth <= budgets.bodyCostGrowth, detail);
  }
  const [smallest, largest] = [lists[0], lists.at(-1)];
  if (smallest && largest && largest !== smallest) {
    // The process's own memory (RssAnon), not the table files LevelDB maps: docs/architecture.md "Local API memory".
    const growth = largest.peakAnonMb - smallest.peakAnonMb;
    check(
      `list memory ${smallest.entries} -> ${largest.entries}`,
      growth <= budgets.listMemoryGrowthMb,
      `server peak anonymous RSS +${fixed(smallest.peakAnonMb, 1)} MB -> +${fixed(largest.peakAnonMb, 1)} MB: ${fixed(growth, 1)} MB <= ${budgets.listMemoryGrowthMb} MB (whole RSS +${fixed(smallest.peakRssMb, 1)} -> +${fixed(largest.peakRssMb, 1)} MB)`,
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
