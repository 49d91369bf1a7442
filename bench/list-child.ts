/**
 * List measurements in a fresh process, in two kinds of job:
 * - `memory`: one list (the handler, or the raw Scan) in a process of its own, so its peak memory is its own:
 *   the process's peak resident set size (`process.resourceUsage().maxRSS`, what Lambda's memory limit
 *   applies to) minus the resident set size just before, after a full GC (`--expose-gc`): the memory the
 *   operation needed, garbage included. Also counts its DynamoDB requests and consumed capacity.
 * - `time`: the listInventory handler (whole invocation: Scan pages, conversion, sort, exact JSON), the raw
 *   paginated Scan it wraps (same projection, items collected in an array) and optionally a raw parallel
 *   Scan, run in turns in one process (`warmups` untimed rounds, default 1, then `runs` timed rounds in rotating order),
 *   so that they share the JIT and GC state and the ratio compares like with like.
 * {@link runListJob} forks this module and receives the figures.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Metered } from './request-meter.ts';

/** What to list: the handler, the raw sequential Scan it wraps, or a raw parallel Scan. */
export type ListMode = 'handler' | 'raw' | 'parallel';

/** A job for the child. */
export type ListJob =
  | { kind: 'memory'; mode: ListMode; endpoint: string; segments?: number }
  | { kind: 'time'; modes: ListMode[]; endpoint: string; runs: number; warmups?: number; segments?: number };

/** Figures of a memory job: bytes, entries returned, DynamoDB usage. */
export interface MemoryFigures {
  peakRssDeltaBytes: number;
  peakRssBytes: number;
  entries: number;
  db: Metered;
}

/** Figures of a time job: milliseconds of each timed run, per mode, and the entries each mode returned. */
export interface TimeFigures {
  runsMs: Partial<Record<ListMode, number[]>>;
  entries: Partial<Record<ListMode, number>>;
}

/** Forks this module with `job` and returns its figures. */
export function runListJob(job: ListJob & { kind: 'memory' }): Promise<MemoryFigures>;
export function runListJob(job: ListJob & { kind: 'time' }): Promise<TimeFigures>;
export function runListJob(job: ListJob): Promise<MemoryFigures | TimeFigures> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(job)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: ['--expose-gc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as MemoryFigures | TimeFigures));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`list measurement failed (exit ${code})`));
    });
  });
}

/** Entries in a list body, counted without parsing it (no allocation to skew the peak). */
function countEntries(body: string): number {
  let count = 0;
  for (let at = body.indexOf('"petId":'); at >= 0; at = body.indexOf('"petId":', at + 8)) count++;
  return count;
}

/** Loads the code under measurement (in the child) and returns one list operation per mode. */
async function listers(job: ListJob) {
  const { functionEnv, benchTableNames } = await import('./function-env.ts');
  Object.assign(process.env, functionEnv(job.endpoint));
  const { paginateScan } = await import('@aws-sdk/lib-dynamodb');
  const { createDocumentClient, documentClient } = await import('#lib/clients/dynamodb.ts');
  const { lambdaContext } = await import('#infra/local/lambda-context.ts');
  const { listEvent } = await import('./events.ts');
  const { handler } = await import('#functions/list-inventory/handler.ts');
  const bare = createDocumentClient();

  /** The raw Scan in `totalSegments` segments at once (1: the sequential paginated Scan). */
  const rawScan = async (totalSegments: number): Promise<number> => {
    const items: Record<string, unknown>[] = [];
    const scanSegment = async (segment: number) => {
      const pages = paginateScan(
        { client: bare },
        {
          TableName: benchTableNames.inventory,
          ProjectionExpression: 'petId, quantity, #status',
          ExpressionAttributeNames: { '#status': 'status' },
          ...(totalSegments > 1 ? { Segment: segment, TotalSegments: totalSegments } : {}),
        },
      );
      for await (const page of pages) for (const item of page.Items ?? []) items.push(item);
    };
    await Promise.all(Array.from({ length: totalSegments }, (_, segment) => scanSegment(segment)));
    return items.length;
  };

  /** One timed list: milliseconds and entries returned (counted after the clock stops). */
  const once = async (mode: ListMode): Promise<{ ms: number; entries: number }> => {
    if (mode === 'handler') {
      const event = listEvent();
      const context = lambdaContext('listInventory');
      const start = performance.now();
      const { collectStreamed, installStreamingRuntime } = await import('#infra/local/response-streaming.ts');
      installStreamingRuntime();
      const streamed = handler as unknown as (
        e: typeof event,
        s: unknown,
        c: typeof context,
      ) => Promise<void>;
      const response = await collectStreamed((stream) => streamed(event, stream, context));
      const ms = performance.now() - start;
      if (response.statusCode !== 200) throw new Error(`list answered ${response.statusCode}`);
      return { ms, entries: countEntries(response.body) };
    }
    const start = performance.now();
    const entries = await rawScan(mode === 'parallel' ? (job.segments ?? 4) : 1);
    return { ms: performance.now() - start, entries };
  };
  return { once, clientOf: (mode: ListMode) => (mode === 'handler' ? documentClient : bare) };
}

/** A memory job (in the child). */
async function memoryJob(job: ListJob & { kind: 'memory' }): Promise<MemoryFigures> {
  const { once, clientOf } = await listers(job);
  const { attachMeter } = await import('./request-meter.ts');
  const meter = attachMeter(clientOf(job.mode));
  (globalThis as { gc?: () => void }).gc?.();
  const rssBefore = process.memoryUsage.rss();
  const { entries } = await once(job.mode);
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  return { peakRssDeltaBytes: peakRssBytes - rssBefore, peakRssBytes, entries, db: meter.take() };
}

/** A time job (in the child). */
async function timeJob(job: ListJob & { kind: 'time' }): Promise<TimeFigures> {
  const { once } = await listers(job);
  const figures: TimeFigures = { runsMs: {}, entries: {} };
  for (let round = 0; round < (job.warmups ?? 1); round++) {
    for (const mode of job.modes) figures.entries[mode] = (await once(mode)).entries;
  }
  for (let round = 0; round < job.runs; round++) {
    for (let i = 0; i < job.modes.length; i++) {
      const mode = job.modes[(round + i) % job.modes.length] as ListMode;
      const { ms } = await once(mode);
      const samples = figures.runsMs[mode] ?? [];
      samples.push(ms);
      figures.runsMs[mode] = samples;
    }
  }
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const job = JSON.parse(process.argv[2] ?? '{}') as ListJob;
  const figures = job.kind === 'memory' ? await memoryJob(job) : await timeJob(job);
  process.send(figures, () => process.exit(0));
}
