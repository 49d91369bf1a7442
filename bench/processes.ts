/** The bench's report lines, statistics, measuring children and DynamoDB meter. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
  const stdio = ['ignore', 'ignore', 'inherit', 'ipc'] as const;
  const child = fork(fileURLToPath(url), [run.name, JSON.stringify(options)], { stdio: [...stdio] });
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

/** What the meter reads of an answer: the SDK's attempts (retries included) and the consumed capacity. */
type MeteredOutput = { $metadata: { attempts?: number }; ConsumedCapacity?: { CapacityUnits?: number } };

/** Meters a client's DynamoDB requests (retries included) and capacity units: the function returned, those of `work`. */
export function attachMeter(client: Pick<DynamoDBDocumentClient, 'middlewareStack'>) {
  let current = { requests: 0, capacityUnits: 0 };
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' };
      const result = await next({ ...args, input });
      const { $metadata, ConsumedCapacity } = result.output as MeteredOutput;
      current.requests += $metadata.attempts ?? 1;
      current.capacityUnits += ConsumedCapacity?.CapacityUnits ?? 0;
      return result;
    },
    { step: 'initialize', name: 'benchMeter', override: true },
  );
  return async (work: () => Promise<unknown>) => {
    current = { requests: 0, capacityUnits: 0 };
    await work();
    return current;
  };
}
