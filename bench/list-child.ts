/**
 * One list measurement in a fresh process, so its peak memory is its own: either the listInventory handler
 * (whole invocation: Scan pages, conversion, sort, exact JSON) or the raw paginated Scan it wraps (same
 * projection, items collected in an array). Peak memory is the process's peak resident set size
 * (`process.resourceUsage().maxRSS`, which is what Lambda's memory limit applies to) minus the resident set
 * size just before the first run, after a full GC (`--expose-gc`): the memory the operation itself needed,
 * garbage included. {@link measureList} forks it and receives the figures.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Metered } from './request-meter.ts';

/** What to measure. */
export interface ListJob {
  /** The handler, the raw sequential Scan it wraps, or a raw parallel Scan (`segments` segments at once). */
  mode: 'handler' | 'raw' | 'parallel';
  /** TotalSegments of the parallel Scan. */
  segments?: number;
  endpoint: string;
  /** Runs in this process; the first one includes JIT warm-up. */
  runs: number;
}

/** Figures of one child. Times in milliseconds, memory in bytes. */
export interface ListFigures {
  mode: ListJob['mode'];
  runsMs: number[];
  /** Entries returned. */
  entries: number;
  /** Peak RSS minus RSS before the first run. */
  peakRssDeltaBytes: number;
  peakRssBytes: number;
  /** DynamoDB requests and capacity of the first run. */
  db: Metered;
}

/** Forks this module with `job` and returns its figures. */
export function measureList(job: ListJob): Promise<ListFigures> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(job)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: ['--expose-gc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as ListFigures));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`list measurement failed (exit ${code})`));
    });
  });
}

/** Runs the job (in the child). */
async function run(job: ListJob): Promise<ListFigures> {
  const { functionEnv, benchTableNames } = await import('./function-env.ts');
  Object.assign(process.env, functionEnv(job.endpoint));
  const { paginateScan } = await import('@aws-sdk/lib-dynamodb');
  const { createDocumentClient, documentClient } = await import('#lib/clients/dynamodb.ts');
  const { lambdaContext } = await import('#infra/local/lambda-context.ts');
  const { attachMeter } = await import('./request-meter.ts');
  const { listEvent } = await import('./events.ts');
  const { handler } = await import('#functions/list-inventory/handler.ts');
  const bare = createDocumentClient();

  /** Entries in a list body, counted without parsing it (no allocation to skew the peak). */
  const countEntries = (body: string): number => {
    let count = 0;
    for (let at = body.indexOf('"petId":'); at >= 0; at = body.indexOf('"petId":', at + 8)) count++;
    return count;
  };
  /** One timed run: milliseconds and the entries it returned (counted after the clock stops). */
  const once = async (): Promise<{ ms: number; entries: number }> => {
    const start = performance.now();
    if (job.mode === 'handler') {
      const response = await handler(listEvent(), lambdaContext('listInventory'));
      const ms = performance.now() - start;
      if (response.statusCode !== 200) throw new Error(`list answered ${response.statusCode}`);
      return { ms, entries: countEntries(response.body) };
    }
    const items: Record<string, unknown>[] = [];
    const totalSegments = job.mode === 'parallel' ? (job.segments ?? 4) : 1;
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
    return { ms: performance.now() - start, entries: items.length };
  };

  const meter = attachMeter(job.mode === 'handler' ? documentClient : bare);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const rssBefore = process.memoryUsage.rss();
  const runsMs: number[] = [];
  let entries = 0;
  let db: Metered | undefined;
  for (let i = 0; i < job.runs; i++) {
    const result = await once();
    runsMs.push(result.ms);
    entries = result.entries;
    if (i === 0) {
      db = meter.take();
      meter.detach();
    }
  }
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  return {
    mode: job.mode,
    runsMs,
    entries,
    peakRssDeltaBytes: peakRssBytes - rssBefore,
    peakRssBytes,
    db: db ?? { requests: 0, capacityUnits: 0, commands: [] },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const figures = await run(JSON.parse(process.argv[2] ?? '{}') as ListJob);
  process.send(figures, () => process.exit(0));
}
