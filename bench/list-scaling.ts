/**
 * List scaling: the inventory table grown to each size (entries loaded with the store's own `putMany`, load
 * time recorded), then listInventory and the raw paginated Scan it wraps measured side by side
 * (bench/list-child.ts): time in one process taking turns (milliseconds, median of the timed rounds), peak
 * memory in a fresh process per list (bytes, median over the processes). Also counts the Scan requests, for
 * comparison with ceil(table bytes / 1 MB), table bytes by DynamoDB's documented item-size rules and by the
 * emulator's page-limit rule (bench/emulator-size.ts); optionally times a raw parallel Scan too (is it
 * worth adding to the store?).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { localClientConfig, startDynamoServer } from './dynamo-server.ts';
import { emulatorScanBytes } from './emulator-size.ts';
import { benchTableNames } from './function-env.ts';
import { generateInventory } from './inventory-data.ts';
import { expectedScanPages, expectedScanReadUnits, inventoryItemBytes } from './item-size.ts';
import { type ListMode, type MemoryFigures, runListJob } from './list-child.ts';
import type { Metered } from './request-meter.ts';
import { quantile } from './stats.ts';

/** How much to measure at one size. */
export interface ScalingStep {
  entries: number;
  /** Timed rounds (each lists once per mode) in the time child. */
  runs: number;
  /** Untimed rounds before them (default 1), so the JIT has compiled both paths before timing starts. */
  warmups?: number;
  /** Fresh processes per mode for peak memory (the figure is their median). */
  memoryChildren: number;
  /** Also time a raw parallel Scan with this many segments. */
  parallelSegments?: number;
}

/** Time (ms, median of the timed rounds) and peak memory (bytes) of one mode, with one list's DynamoDB usage. */
export interface ModeFigures {
  medianMs: number;
  samplesMs: number[];
  peakRssDeltaBytes: number;
  db: Metered;
}

/** Figures at one size. */
export interface ScalingResult {
  entries: number;
  /** Sum of item sizes by DynamoDB's rules (bench/item-size.ts), bytes. */
  tableBytes: number;
  /** ceil(tableBytes / 1 MB). */
  expectedPages: number;
  /** Sum of the emulator's page-limit sizes (bench/emulator-size.ts), bytes. */
  emulatorBytes: number;
  /** ceil(emulatorBytes / 1 MB): the pages the emulator must answer with. */
  emulatorPages: number;
  /** Read units of one eventually consistent full Scan predicted from tableBytes. */
  expectedReadUnits: number;
  /** Milliseconds to load this size's new entries with `putMany`, and entries per second. */
  loadMs: number;
  loadRate: number;
  handler: ModeFigures;
  raw: ModeFigures;
  /** The raw parallel Scan (time only), when asked for, with its segment count. */
  parallel?: { segments: number; medianMs: number; samplesMs: number[] };
}

/** Measures one mode's peak memory in `children` fresh processes; the median, and the first one's usage. */
async function memoryOf(mode: ListMode, endpoint: string, children: number, entries: number) {
  const figures: MemoryFigures[] = [];
  for (let i = 0; i < children; i++) {
    const result = await runListJob({ kind: 'memory', mode, endpoint });
    if (result.entries !== entries)
      throw new Error(`${mode} returned ${result.entries} entries, expected ${entries}`);
    figures.push(result);
  }
  return {
    peakRssDeltaBytes: quantile(
      figures.map((f) => f.peakRssDeltaBytes),
      0.5,
    ),
    db: (figures[0] as MemoryFigures).db,
  };
}

/**
 * Measures every step in order, growing one table (a fresh bench DynamoDB of its own).
 * @param onProgress called with a line of progress after each load and each size
 */
export async function measureListScaling(
  steps: readonly ScalingStep[],
  onProgress: (line: string) => void = () => {},
): Promise<ScalingResult[]> {
  const db = await startDynamoServer();
  const client = toDocumentClient(new DynamoDBClient({ ...localClientConfig, endpoint: db.endpoint }));
  const store = inventoryStore(client, benchTableNames.inventory);
  const results: ScalingResult[] = [];
  let loaded = 0;
  let tableBytes = 0;
  let emulatorBytes = 0;
  try {
    for (const step of steps) {
      const items = generateInventory(loaded, step.entries);
      const start = performance.now();
      await store.putMany(items);
      const loadMs = performance.now() - start;
      for (const item of items) {
        tableBytes += inventoryItemBytes(item);
        emulatorBytes += emulatorScanBytes(item);
      }
      loaded = step.entries;
      onProgress(`loaded ${items.length} entries in ${Math.round(loadMs)} ms (table: ${loaded})`);

      const modes: ListMode[] = step.parallelSegments ? ['handler', 'raw', 'parallel'] : ['handler', 'raw'];
      const timing = await runListJob({
        kind: 'time',
        modes,
        endpoint: db.endpoint,
        runs: step.runs,
        warmups: step.warmups ?? 1,
        ...(step.parallelSegments ? { segments: step.parallelSegments } : {}),
      });
      for (const mode of modes) {
        if (timing.entries[mode] !== step.entries) {
          throw new Error(`${mode} returned ${timing.entries[mode]} entries, expected ${step.entries}`);
        }
      }
      const timeOf = (mode: ListMode) => {
        const samplesMs = timing.runsMs[mode] ?? [];
        return { medianMs: quantile(samplesMs, 0.5), samplesMs };
      };
      const handlerMemory = await memoryOf('handler', db.endpoint, step.memoryChildren, step.entries);
      const rawMemory = await memoryOf('raw', db.endpoint, step.memoryChildren, step.entries);
      const result: ScalingResult = {
        entries: step.entries,
        tableBytes,
        expectedPages: expectedScanPages(tableBytes),
        emulatorBytes,
        emulatorPages: expectedScanPages(emulatorBytes),
        expectedReadUnits: expectedScanReadUnits(tableBytes),
        loadMs,
        loadRate: items.length / (loadMs / 1000),
        handler: { ...timeOf('handler'), ...handlerMemory },
        raw: { ...timeOf('raw'), ...rawMemory },
        ...(step.parallelSegments
          ? { parallel: { segments: step.parallelSegments, ...timeOf('parallel') } }
          : {}),
      };
      results.push(result);
      onProgress(
        `list of ${step.entries}: handler ${Math.round(result.handler.medianMs)} ms, raw ${Math.round(result.raw.medianMs)} ms`,
      );
    }
  } finally {
    client.destroy();
    await db.close();
  }
  return results;
}
