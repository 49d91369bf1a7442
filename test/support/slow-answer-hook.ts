/**
 * Test-only slow answers of the embedded DynamoDB, preloaded with `node --import` into the process that serves
 * it (`npm start`): docs/architecture.md "Slow answers". Production code has no hook.
 *
 * While the file named by `SLOW_ARMED` exists, the first write matching its text, `<Operation> [<TableName>]`,
 * is committed by the store as usual and its answer is then held for `SLOW_ANSWER_MS` milliseconds (default:
 * one second past the service's DynamoDB request timeout, lib/clients/dynamodb-client.ts), so the SDK gives the
 * attempt up and sends it again. The hook removes the file as the write matches: one slow answer per arming.
 * Single-item writes and `BatchWriteItem` are matched in dynalite's actions (their table is known there), a
 * `TransactWriteItems` where it reaches the store's HTTP server.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { requestTimeoutMs } from '../../lib/clients/dynamodb-client.ts';

const armedFile = process.env.SLOW_ARMED ?? '';
const delayMs = Number(process.env.SLOW_ANSWER_MS ?? requestTimeoutMs + 1000);
const require = createRequire(import.meta.url);

/** True, once per arming, when the armed write is `operation` on `tableNames` (any, when it names none). */
function fires(operation: string, tableNames: readonly string[]): boolean {
  if (armedFile === '' || !existsSync(armedFile)) return false;
  const [armedOperation, armedTable] = readFileSync(armedFile, 'utf8').trim().split(' ');
  if (armedOperation !== operation) return false;
  if (armedTable !== undefined && !tableNames.includes(armedTable)) return false;
  rmSync(armedFile, { force: true });
  return true;
}

type Callback = (error: unknown, result?: unknown) => void;
type Action = (store: unknown, data: Record<string, unknown>, callback: Callback) => void;

/** dynalite's module name of each single-request write. */
const actionModules = {
  PutItem: 'putItem',
  UpdateItem: 'updateItem',
  DeleteItem: 'deleteItem',
  BatchWriteItem: 'batchWriteItem',
};

// The store runs in the main thread; the functions' worker threads get the preload too and need none of it.
for (const [operation, module] of isMainThread ? Object.entries(actionModules) : []) {
  // Replaced in the module cache before dynalite loads it: dynalite's own `require` then gets this one.
  const path = require.resolve(`dynalite/actions/${module}.js`);
  const original = require(path) as Action;
  const hooked: Action = (store, data, callback) => {
    const tables = data.TableName === undefined ? Object.keys(data.RequestItems ?? {}) : [data.TableName];
    if (!fires(operation, tables as string[])) return original(store, data, callback);
    // dynalite calls back once the write is stored and its item lock released.
    original(store, data, (error, result) => setTimeout(() => callback(error, result), delayMs));
  };
  (require.cache[path] as NodeJS.Module).exports = hooked;
}

const emit = Server.prototype.emit;
if (isMainThread)
  Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
    const [request, response] = args as [IncomingMessage, ServerResponse];
    if (
      event === 'request' &&
      String(request.headers['x-amz-target']).endsWith('.TransactWriteItems') &&
      fires('TransactWriteItems', [])
    ) {
      // The store answers once it has committed: its answer's head and body are held, then sent if still wanted.
      const { writeHead, end } = response;
      const held: (() => void)[] = [];
      response.writeHead = ((...head: Parameters<typeof writeHead>) => {
        held.push(() => writeHead.apply(response, head));
        return response;
      }) as typeof writeHead;
      response.end = ((...body: Parameters<typeof end>) => {
        held.push(() => end.apply(response, body));
        setTimeout(() => {
          if (!response.destroyed) for (const step of held) step();
        }, delayMs);
        return response;
      }) as typeof end;
    }
    return (emit as (event: string, ...args: unknown[]) => boolean).call(this, event, ...args);
  } as typeof Server.prototype.emit;
