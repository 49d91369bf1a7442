/**
 * Test-only slow answers of the embedded DynamoDB, preloaded with `node --import` into the process that serves
 * it (`npm start`): docs/architecture.md "Slow answers". Production code has no hook.
 *
 * While the file named by `SLOW_ARMED` exists, the first write matching its text, `<Operation> [<TableName>]`,
 * is committed by the store as usual and its answer is then held for `SLOW_ANSWER_MS` milliseconds (default:
 * one second past the service's DynamoDB request timeout, lib/clients/dynamodb-client.ts), so the SDK gives the
 * attempt up and sends it again. The hook removes the file as the write matches: one slow answer per arming.
 * Single-item writes and `BatchWriteItem` are matched in dynalite's actions (their table is known there), a
 * `TransactWriteItems` where it reaches the store's HTTP server (its body read for the tables it writes).
 *
 * A window for another writer: while the file named by `SLOW_WINDOW` exists when a `TransactWriteItems` fires,
 * the hook writes `<SLOW_WINDOW>.committed` once the store has committed it, and holds the SDK's retries of that
 * call (the requests with its `amz-sdk-invocation-id`, which the SDK keeps for every attempt of one call) until
 * the test removes `SLOW_WINDOW`: whatever the test writes in between lands after the commit and before the
 * retry.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { requestTimeoutMs } from '../../lib/clients/dynamodb-client.ts';

const armedFile = process.env.SLOW_ARMED ?? '';
const windowFile = process.env.SLOW_WINDOW ?? '';
/** The invocation ids of the calls whose retries wait while {@link windowFile} exists. */
const heldCalls = new Set<string>();
/** Milliseconds between looks at {@link windowFile} while a retry waits. */
const windowPollMs = 20;
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

const emit = Server.prototype.emit as (this: Server, event: string, ...args: unknown[]) => boolean;

/** True while an arming for `operation` waits (the file is left in place: {@link fires} takes it). */
function armedFor(operation: string): boolean {
  return armedFile !== '' && existsSync(armedFile) && readFileSync(armedFile, 'utf8').startsWith(operation);
}

/**
 * Holds `response` (a committed transaction's answer) for {@link delayMs}; with a window open, notes the
 * commit and holds the retries of the call `call`.
 */
function holdAnswer(response: ServerResponse, call: string): void {
  const windowed = windowFile !== '' && existsSync(windowFile) && call !== '';
  if (windowed) heldCalls.add(call);
  // The store answers once it has committed: its answer's head and body are held, then sent if still wanted.
  const { writeHead, end } = response;
  const held: (() => void)[] = [];
  response.writeHead = ((...head: Parameters<typeof writeHead>) => {
    held.push(() => writeHead.apply(response, head));
    return response;
  }) as typeof writeHead;
  response.end = ((...body: Parameters<typeof end>) => {
    held.push(() => end.apply(response, body));
    if (windowed) writeFileSync(`${windowFile}.committed`, '');
    setTimeout(() => {
      if (!response.destroyed) for (const step of held) step();
    }, delayMs);
    return response;
  }) as typeof end;
}

if (isMainThread) {
  // The kit's entry loads the store (dynalite) with it: imported once its write actions above are replaced.
  const { readAndReplay } = await import('local-aws/testing');
  Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
    if (event !== 'request') return emit.call(this, event, ...args);
    const [request, response] = args as [IncomingMessage, ServerResponse];
    const call = String(request.headers['amz-sdk-invocation-id'] ?? '');
    if (heldCalls.has(call)) {
      // A retry of the call whose window is open: let it in once the test closed the window.
      const release = () => {
        if (existsSync(windowFile)) return void setTimeout(release, windowPollMs);
        heldCalls.delete(call);
        emit.call(this, event, ...args);
      };
      release();
      return true;
    }
    if (
      !String(request.headers['x-amz-target']).endsWith('.TransactWriteItems') ||
      !armedFor('TransactWriteItems')
    )
      return emit.call(this, event, ...args);
    // The tables a transaction writes are in its body: read it, decide, and hand the store a replay.
    void readAndReplay(request).then(([text, replayed]) => {
      const tables = [...text.matchAll(/"TableName":"([^"]+)"/g)].map((match) => match[1] as string);
      if (fires('TransactWriteItems', tables)) holdAnswer(response, call);
      emit.call(this, event, replayed, response);
    });
    return true;
  } as typeof Server.prototype.emit;
}
