/** The bench's processes (measuring children, `npm start`), their memory, and its statistics. */
import { fork } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { connectLocalDynamoDb, type StoreCredentials } from '@pet-store/local-aws';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { childEnv, runNode } from '#test/support/child-process.ts';
import { startServerProcess } from '#test/support/server-process.ts';

/** The `q` quantile (0..1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** Runs the module `url` in a child process with `options` ({@link childMain}), so its environment stays there. */
export function inChild<T>(url: string, options: unknown): Promise<T> {
  const child = fork(fileURLToPath(url), [JSON.stringify(options)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`${fileURLToPath(url)} failed (exit ${code})`)));
  });
}

/** In the module `url` when {@link inChild} runs it: sends `run(options)` to the parent and exits. */
export async function childMain<O>(url: string, run: (options: O) => Promise<unknown>): Promise<void> {
  if (process.argv[1] !== fileURLToPath(url) || !process.send) return;
  const results = await run(JSON.parse(process.argv[2] ?? '{}') as O);
  process.send(results, () => process.exit(0));
}

/** A document client of the DynamoDB at `endpoint`, signing with `credentials` (the store's own). */
export function documentClientAt(endpoint: string, credentials: StoreCredentials) {
  return toDocumentClient(new DynamoDBClient({ endpoint, region: 'us-east-1', credentials }));
}

/**
 * `npm start --stack staging --assembly <assembly>` on the data folder `DATA_DIR` with the key `API_KEY` (every
 * scope, 10,000 requests/s), ERROR logs: the server (test/support/server-process.ts), its store's client, `close`.
 */
export async function startServer(assembly: string, env: { DATA_DIR: string; API_KEY: string }) {
  const variables = { API_KEY_RATE: '10000', POWERTOOLS_LOG_LEVEL: 'ERROR', ...env };
  const server = await startServerProcess(variables, { assembly, timeoutMs: 300_000 });
  const { endpoint, credentials } = await connectLocalDynamoDb(env.DATA_DIR);
  const client = documentClientAt(endpoint, credentials);
  const close = () => server.stop().finally(() => client.destroy());
  return { ...server, client, endpoint, credentials, close };
}

/** Runs the operator tool `script` (ops/…) on the data folder `DATA_DIR`. @throws with its output unless it succeeds */
export async function runTool(script: string, args: string[], DATA_DIR: string) {
  const result = await runNode(script, args, { env: childEnv({ DATA_DIR }), timeoutMs: 3_600_000 });
  if (result.code !== 0) throw new Error(`${script} ${args.join(' ')}: ${result.stderr}`);
}

/** Counts a client's DynamoDB requests (retries included) and capacity units; `take()` returns and resets them. */
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
  return {
    take() {
      const taken = current;
      current = { requests: 0, capacityUnits: 0 };
      return taken;
    },
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
export async function peakGrowth<T>(pid: number, work: () => Promise<T>) {
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
