/**
 * List scaling: the inventory table grown to each size (entries loaded with the store's own `putMany`, load
 * time recorded), then listInventory and the raw paginated Scan measured side by side in fresh processes
 * (bench/list-child.ts), alternating, for time (milliseconds, median of the warm runs: every run of a child
 * but its first) and peak memory (bytes, median over the children). Also counts the Scan requests, for
 * comparison with ceil(table bytes / 1 MB), table bytes by DynamoDB's documented item-size rules and by the
 * emulator's page-limit rule (bench/emulator-size.ts); optionally times a raw parallel Scan too (is it
 * worth adding to the store?).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inventoryStore } from '#lib/inventory/store.ts';
import { localClientConfig, startDynamoServer } from './dynamo-server.ts';
import { emulatorScanBytes } from './emulator-size.ts';
import { benchTableNames } from './function-env.ts';
import { generateInventory } from './inventory-data.ts';
import { expectedScanPages, expectedScanReadUnits, inventoryItemBytes } from './item-size.ts';
import { type ListFigures, type ListJob, measureList } from './list-child.ts';
import type { Metered } from './request-meter.ts';
import { quantile } from './stats.ts';

/** How much to measure at one size. */
export interface ScalingStep {
  entries: number;
  /** Children per mode (handler, raw). */
  children: number;
  /** Runs per child (the first is JIT warm-up and not in the time figure when there are more). */
  runs: number;
  /** Also time a raw parallel Scan with this many segments (same children and runs). */
  parallelSegments?: number;
}

/** Time (ms) and peak memory (bytes) of one mode at one size, with the DynamoDB usage of one list. */
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
  /** The raw parallel Scan, when asked for, with its segment count. */
  parallel?: ModeFigures & { segments: number };
}

/** Combines the children of one mode. */
function combine(children: ListFigures[]): ModeFigures {
  const samplesMs = children.flatMap((c) => (c.runsMs.length > 1 ? c.runsMs.slice(1) : c.runsMs));
  return {
    medianMs: quantile(samplesMs, 0.5),
    samplesMs,
    peakRssDeltaBytes: quantile(
      children.map((c) => c.peakRssDeltaBytes),
      0.5,
    ),
    db: (children[0] as ListFigures).db,
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
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...localClientConfig, endpoint: db.endpoint }),
    {
      unmarshallOptions: { wrapNumbers: true },
    },
  );
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

      const children: Record<ListJob['mode'], ListFigures[]> = { handler: [], raw: [], parallel: [] };
      const modes: ListJob['mode'][] = step.parallelSegments
        ? ['handler', 'raw', 'parallel']
        : ['handler', 'raw'];
      for (let i = 0; i < step.children; i++) {
        for (let j = 0; j < modes.length; j++) {
          const mode = modes[(i + j) % modes.length] as ListJob['mode'];
          const figures = await measureList({
            mode,
            endpoint: db.endpoint,
            runs: step.runs,
            ...(step.parallelSegments ? { segments: step.parallelSegments } : {}),
          });
          if (figures.entries !== step.entries) {
            throw new Error(`${mode} returned ${figures.entries} entries, expected ${step.entries}`);
          }
          children[mode].push(figures);
        }
      }
      const result: ScalingResult = {
        entries: step.entries,
        tableBytes,
        expectedPages: expectedScanPages(tableBytes),
        emulatorBytes,
        emulatorPages: expectedScanPages(emulatorBytes),
        expectedReadUnits: expectedScanReadUnits(tableBytes),
        loadMs,
        loadRate: items.length / (loadMs / 1000),
        handler: combine(children.handler),
        raw: combine(children.raw),
        ...(step.parallelSegments
          ? { parallel: { ...combine(children.parallel), segments: step.parallelSegments } }
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
