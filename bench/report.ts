/**
 * Plain-text tables of a run's figures, for the terminal and for the README draft. Sizes in KB (1,024 bytes),
 * times in milliseconds, memory in MB (1,048,576 bytes).
 */
import type { BudgetCheck } from './budgets.ts';
import type { BuiltBundle } from './bundles.ts';
import type { OperationCost } from './cost.ts';
import type { ListResult } from './list-http.ts';
import type { LoadTime } from './load-time.ts';
import type { Machine } from './machine.ts';
import { kb } from './stats.ts';
import type { WarmResult } from './warm.ts';

/** A table with a header row, columns padded to their widest cell; numbers right-aligned. */
export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers, ...rows].map((row) => row.map(String));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[], raw: readonly (string | number)[]) =>
    row
      .map((cell, i) =>
        typeof raw[i] === 'number' ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [
    line(cells[0] ?? [], headers),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map((row, i) => line(cells[i + 1] ?? [], row)),
  ].join('\n');
}

const f = (value: number, digits = 2) => Number(value.toFixed(digits));

/** The machine line. */
export function machineLine(machine: Machine): string {
  return `Machine: ${machine.cores} cores (nproc), ${machine.cpuModel}, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.platform}`;
}

/** Bundle sizes and their largest packages. */
export function bundleTable(bundles: readonly BuiltBundle[], topPackages = 5): string {
  return table(
    ['bundle', 'JS KB', 'map KB', 'JS+map KB', 'largest packages (KB)'],
    bundles.map((b) => [
      b.name,
      kb(b.jsBytes),
      kb(b.mapBytes),
      kb(b.jsBytes + b.mapBytes),
      b.packages
        .slice(0, topPackages)
        .map((p) => `${p.name} ${kb(p.bytes)}`)
        .join(', '),
    ]),
  );
}

/**
 * Load times (import of the bundle in a fresh process): CPU and wall clock, as deployed (source maps on) and
 * without source maps, each with its ratio to the budget's baseline (the naive SDK client alone: no trims),
 * and, for information, the CPU ratio to the trimmed baseline (the same handler with the service's trims).
 */
export function loadTable(
  deployed: readonly LoadTime[],
  noMaps: readonly LoadTime[],
  baselineName: string,
  trimmedBaselineName: string,
): string {
  const base = deployed.find((l) => l.name === baselineName);
  const trimmedBase = deployed.find((l) => l.name === trimmedBaselineName);
  const baseNoMaps = noMaps.find((l) => l.name === baselineName);
  const ratio = (value: number, baseValue: number | undefined) => (baseValue ? f(value / baseValue) : '-');
  return table(
    [
      'bundle',
      'CPU p50',
      'CPU p90',
      'ratio',
      'trimmed baseline ratio',
      'wall p50',
      'wall p90',
      'ratio',
      'no maps CPU p50',
      'ratio',
      'process p50',
      'n',
    ],
    deployed.map((l) => {
      const m = noMaps.find((x) => x.name === l.name);
      return [
        l.name,
        f(l.importCpu.p50, 1),
        f(l.importCpu.p90, 1),
        ratio(l.importCpu.p50, base?.importCpu.p50),
        ratio(l.importCpu.p50, trimmedBase?.importCpu.p50),
        f(l.import.p50, 1),
        f(l.import.p90, 1),
        ratio(l.import.p50, base?.import.p50),
        m ? f(m.importCpu.p50, 1) : '-',
        m ? ratio(m.importCpu.p50, baseNoMaps?.importCpu.p50) : '-',
        f(l.process.p50, 1),
        l.import.n,
      ];
    }),
  );
}

/** One row of {@link trimsTable}: a bundle with the trims and the same entry without them. */
export interface TrimPair {
  label: string;
  trimmed: BuiltBundle;
  untrimmed: BuiltBundle;
}

/** What the trims buy: size and import CPU time of each bundle without and with them. */
export function trimsTable(pairs: readonly TrimPair[], loads: readonly LoadTime[]): string {
  const cpu = (name: string) => loads.find((l) => l.name === name)?.importCpu.p50 ?? Number.NaN;
  return table(
    ['bundle', 'KB untrimmed', 'KB trimmed', 'change', 'CPU ms untrimmed', 'CPU ms trimmed', 'change'],
    pairs.map(({ label, trimmed, untrimmed }) => {
      const beforeCpu = cpu(untrimmed.name);
      const afterCpu = cpu(trimmed.name);
      return [
        label,
        kb(untrimmed.jsBytes),
        kb(trimmed.jsBytes),
        `${Math.round((trimmed.jsBytes / untrimmed.jsBytes - 1) * 100)}%`,
        f(beforeCpu, 1),
        f(afterCpu, 1),
        `${Math.round((afterCpu / beforeCpu - 1) * 100)}%`,
      ];
    }),
  );
}

/** Warm latency beside the bare call, with DynamoDB usage and connections. */
export function warmTable(warm: readonly WarmResult[]): string {
  return table(
    [
      'function',
      'p50',
      'p99',
      'bare call',
      'bare p50',
      'bare p99',
      'ratio p50',
      'ratio p99',
      'requests',
      'capacity',
      'conns/100',
      'alone µs p50',
    ],
    warm.map((w) => [
      w.name,
      f(w.handlerMs.p50, 3),
      f(w.handlerMs.p99, 3),
      w.bare,
      f(w.bareMs.p50, 3),
      f(w.bareMs.p99, 3),
      f(w.handlerMs.p50 / w.bareMs.p50),
      f(w.handlerMs.p99 / w.bareMs.p99),
      w.handlerDb.requests,
      w.handlerDb.capacityUnits,
      w.socketsPer100,
      f(w.handlerAloneUs.p50, 1),
    ]),
  );
}

/** List over HTTP: time, first byte, memory, read units, body size, load rate. */
export function listTable(lists: readonly ListResult[]): string {
  return table(
    [
      'entries',
      'list ms',
      'first byte ms',
      'raw ms',
      'ratio',
      'peak +MB',
      'RRU / list',
      'body MB',
      'load /s',
    ],
    lists.map((l) => [
      l.entries,
      f(l.totalMs, 1),
      f(l.firstByteMs, 1),
      f(l.rawMs, 1),
      f(l.totalMs / l.rawMs),
      f(l.peakMemoryMb, 1),
      l.readUnits,
      f(l.bodyMb, 1),
      Math.round(l.loadRate),
    ]),
  );
}

/** DynamoDB cost per 1,000 requests of each operation. */
export function costTable(costs: readonly OperationCost[]): string {
  return table(
    ['operation', 'units / 1,000 requests', 'USD / 1,000', 'note'],
    costs.map((c) => [c.operation, `${c.unitsPer1000} ${c.unit}`, c.dollarsPer1000.toFixed(6), c.note]),
  );
}

/** PASS/FAIL lines. */
export function budgetLines(checks: readonly BudgetCheck[]): string {
  return checks.map((c) => `${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`).join('\n');
}
