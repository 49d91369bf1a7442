/** The bench's processes (measuring children, `npm start`), their memory, and its statistics. */
import { fork } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { childEnv, runNode } from '#test/support/child-process.ts';
import { startServerProcess } from '#test/support/server-process.ts';
import { dynamoDbClient, runningStore } from '#test/support/test-dynamodb.ts';

/** Prints `line` of the bench's report; {@link indented} under a part's heading. */
export const log = (line = '') => process.stdout.write(`${line}\n`);
export const indented = (line: string) => log(`  ${line}`);

/** The `q` quantile (0..1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** The median of `values` ({@link quantile} 0.5). */
export const median = (values: readonly number[]) => quantile(values, 0.5);

/** The median of each column of `rows` (samples of several figures). */
export const medians = (rows: readonly number[][]) =>
  (rows[0] ?? []).map((_, k) => median(rows.map((row) => row[k] ?? Number.NaN)));

/** Runs `run` of the module `url` in a child process ({@link childMain}), so the environment it sets stays there. */
export function inChild<O, R>(url: string, run: (options: O) => Promise<R>, options: O): Promise<R> {
  const child = fork(fileURLToPath(url), [run.name, JSON.stringify(options)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as R));
    child.once('exit', (code) => reject(new Error(`${run.name} failed (exit ${code})`)));
  });
}

/** In the module `url` when {@link inChild} runs it: sends the result of the named one of `runs` and exits. */
export async function childMain(url: string, runs: Record<string, (options: never) => Promise<unknown>>) {
  const run = runs[process.argv[2] ?? ''];
  if (process.argv[1] !== fileURLToPath(url) || !process.send || !run) return;
  const results = await run(JSON.parse(process.argv[3] ?? '{}') as never);
  process.send(results, () => process.exit(0));
}

/**
 * `npm start --stack staging --assembly <assembly>` on the data folder `DATA_DIR` with the key `API_KEY` (every
 * scope, 10,000 requests/s), ERROR logs: the server (test/support/server-process.ts), its store and a client of
 * it, timed lists of `/inventory<query>`, the peak growth over a whole list ({@link listPeak}), `close`.
 */
export async function startServer(assembly: string, env: { DATA_DIR: string; API_KEY: string }) {
  const variables = { API_KEY_RATE: '10000', POWERTOOLS_LOG_LEVEL: 'ERROR', ...env };
  const server = await startServerProcess(variables, { assembly, timeoutMs: 300_000 });
  const store = await runningStore(env.DATA_DIR);
  const client = toDocumentClient(dynamoDbClient(store.endpoint, store.credentials));
  /** One list of `/inventory<query>`: ms to the first body byte and to the end, with `keep` the body. @throws unless a complete 200 array */
  const list = async (query = '', keep = false) => {
    const start = performance.now();
    const headers = { Authorization: `Bearer ${env.API_KEY}` };
    const response = await fetch(`${server.baseUrl}/inventory${query}`, { headers });
    const [kept, at] = [[] as Uint8Array[], { firstByteMs: 0, last: 0 }];
    for await (const chunk of response.body ?? []) {
      at.firstByteMs ||= performance.now() - start;
      at.last = chunk.at(-1) ?? 0;
      if (keep) kept.push(chunk);
    }
    if (response.status !== 200 || at.last !== 0x5d) throw new Error(`incomplete list (${response.status})`);
    return {
      firstByteMs: at.firstByteMs,
      totalMs: performance.now() - start,
      body: Buffer.concat(kept).toString(),
    };
  };
  /** A one-entry page first starts the list function's environment, so the peak is the list's own. */
  const listPeak = async (keep = false) => {
    await list('?limit=1');
    return peakGrowth(server.pid, () => list('', keep));
  };
  const close = () => server.stop().finally(() => client.destroy());
  return { ...server, ...store, client, list, listPeak, close };
}

/** Runs the operator tool `script` (ops/…) on the data folder `DATA_DIR`. @throws with its output unless it succeeds */
export async function runTool(script: string, args: string[], DATA_DIR: string) {
  const result = await runNode(script, args, { env: childEnv({ DATA_DIR }), timeoutMs: 3_600_000 });
  if (result.code !== 0) throw new Error(`${script} ${args.join(' ')}: ${result.stderr}`);
}

/** Meters a client's DynamoDB requests (retries included) and capacity units: the function returned gives those of `work`. */
export function attachMeter(client: Pick<DynamoDBDocumentClient, 'middlewareStack'>) {
  let current = { requests: 0, capacityUnits: 0 };
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next({
        ...args,
        input: { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' },
      });
      const { ConsumedCapacity } = result.output as { ConsumedCapacity?: { CapacityUnits?: number } };
      current.capacityUnits += ConsumedCapacity?.CapacityUnits ?? 0;
      return result;
    },
    { step: 'initialize', name: 'benchCapacity', override: true },
  );
  client.middlewareStack.add(
    (next) => (args) => {
      current.requests++;
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'benchRequests', override: true },
  );
  return async (work: () => Promise<unknown>) => {
    current = { requests: 0, capacityUnits: 0 };
    await work();
    return current;
  };
}

/** Resident memory of process `pid` in MB (Linux `/proc/<pid>/status`): VmRSS, VmHWM, RssAnon. */
async function memoryMb(pid: number) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM'), anon: field('RssAnon') };
}

/**
 * Process `pid`'s peak growth over `work` in MB: VmHWM (reset by `clear_refs`) less VmRSS before, and its own
 * anonymous memory (RssAnon, every 10 ms) less before (docs/architecture.md "Local API memory").
 */
async function peakGrowth<T>(pid: number, work: () => Promise<T>) {
  await writeFile(`/proc/${pid}/clear_refs`, '5');
  const before = await memoryMb(pid);
  let anon = before.anon;
  const sampler = setInterval(async () => {
    anon = Math.max(anon, (await memoryMb(pid).catch(() => before)).anon);
  }, 10);
  const result = await work().finally(() => clearInterval(sampler));
  const after = await memoryMb(pid);
  return { result, peakRssMb: after.peak - before.rss, peakAnonMb: Math.max(anon, after.anon) - before.anon };
}
