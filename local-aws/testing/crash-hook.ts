/**
 * Test-only crash points of the embedded DynamoDB, preloaded with `node --import` into a process that serves
 * it (a server, a tool on its own store, a suite's store process): README.md "The embedded DynamoDB". The
 * testing kit names it (`crashHookUrl`); production code has no hook.
 *
 * `CRASH_AT` = `<point> <Operation> [<TableName>]` picks the point; the hook is armed while the file named by
 * `CRASH_ARMED` exists (so that the writes of a start, the tables and the demo data, pass), and then the
 * process kills itself with SIGKILL:
 * - `before`: a write request reached the store, nothing is decided or written;
 * - `after`: the store committed the write, before its answer leaves (so no client sees it);
 * - `mid`: a `TransactWriteItems` has decided its first action and not the second; a single-item write has
 *   written its index entries and not its item (dynalite alone writes them one by one).
 * Single-item writes and `BatchWriteItem` are matched in dynalite's actions (their table is known there), a
 * transaction where it reaches the store's HTTP server (its body read when `CRASH_AT` names a table, so that
 * the transactions of its other clients on other tables pass).
 */
import { existsSync } from 'node:fs';
import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { readAndReplay } from './replayed-request.ts';

const [point, operation, tableName] = (process.env.CRASH_AT ?? '').split(' ');
const armedFile = process.env.CRASH_ARMED ?? '';
const require = createRequire(import.meta.url);

/** Kills this process at once, as a power cut or an OOM kill would: no handler, no flush. */
function crash(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

const armed = () => armedFile !== '' && existsSync(armedFile);

type Callback = (error: unknown, result?: unknown) => void;
type Action = (store: unknown, data: Record<string, unknown>, callback: Callback) => void;

/** True when the request `data` of dynalite's action writes to the table named in `CRASH_AT` (or any). */
function writesTable(data: Record<string, unknown>): boolean {
  if (tableName === undefined) return true;
  if (data.TableName !== undefined) return data.TableName === tableName;
  return Object.hasOwn((data.RequestItems ?? {}) as object, tableName);
}

/** dynalite's module name of each single-request write. */
const actionModules: Record<string, string> = {
  PutItem: 'putItem',
  UpdateItem: 'updateItem',
  DeleteItem: 'deleteItem',
  BatchWriteItem: 'batchWriteItem',
};

const actionModule = operation ? actionModules[operation] : undefined;
if (actionModule && (point === 'before' || point === 'after')) {
  // Replaced in the module cache before dynalite loads it: dynalite's own `require` then gets this one.
  const path = require.resolve(`dynalite/actions/${actionModule}.js`);
  const original = require(path) as Action;
  const hooked: Action = (store, data, callback) => {
    if (!armed() || !writesTable(data)) return original(store, data, callback);
    if (point === 'before') crash();
    original(store, data, (error, result) => {
      if (!error) crash();
      callback(error, result);
    });
  };
  (require.cache[path] as NodeJS.Module).exports = hooked;
}

/** Write decisions (`updateIndexes` calls) of the transaction in progress; undefined outside one. */
let decisions: number | undefined;

if (operation === 'TransactWriteItems') {
  const emit = Server.prototype.emit as (this: Server, event: string, ...args: unknown[]) => boolean;
  /** Arms `response`'s crash at the point, for a transaction that writes the table named in `CRASH_AT`. */
  const arm = (response: ServerResponse) => {
    if (armed() && point === 'before') crash();
    // The store has committed once it writes its answer's head: the process dies before any byte leaves.
    if (armed() && point === 'after') response.writeHead = crash;
    decisions = 0;
    response.once('finish', () => {
      decisions = undefined;
    });
  };
  Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
    const [request, response] = args as [IncomingMessage, ServerResponse];
    if (event !== 'request' || !String(request.headers['x-amz-target']).endsWith('.TransactWriteItems'))
      return emit.call(this, event, ...args);
    if (tableName === undefined) {
      arm(response);
      return emit.call(this, event, ...args);
    }
    // The tables a transaction writes are in its body: read it, decide, and hand the store a replay.
    void readAndReplay(request).then(([text, replayed]) => {
      if (text.includes(`"TableName":${JSON.stringify(tableName)}`)) arm(response);
      emit.call(this, event, replayed, response);
    });
    return true;
  } as typeof Server.prototype.emit;
}

if (point === 'mid') {
  // dynalite's write path calls `updateIndexes` (table, old item, new item, callback) before it writes the item
  // itself, once per item written, whoever replaces the function later.
  type UpdateIndexes = (store: unknown, table: { TableName: string }, ...rest: unknown[]) => unknown;
  const db = require('dynalite/db/index.js') as { updateIndexes: UpdateIndexes };
  let current = db.updateIndexes;
  Object.defineProperty(db, 'updateIndexes', {
    get:
      (): UpdateIndexes =>
      (store, table, ...rest) => {
        if (!armed()) return current(store, table, ...rest);
        if (operation === 'TransactWriteItems') {
          if (decisions !== undefined && ++decisions === 2) crash();
          return current(store, table, ...rest);
        }
        if (tableName !== undefined && table.TableName !== tableName) return current(store, table, ...rest);
        // A single-item write: killed once its index entries are written and before its item is.
        rest.pop(); // its callback: the process dies instead
        return current(store, table, ...rest, crash);
      },
    set: (next: UpdateIndexes) => {
      current = next;
    },
  });
}
