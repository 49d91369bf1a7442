/** `TransactWriteItems` and `ALL_OLD` added to dynalite: README "The embedded store's gaps". */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

const targetPrefix = 'DynamoDB_20120810.';
const singleWrites = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const conditionFailed = 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException';

type Json = Record<string, unknown>;

/**
 * Adds `ReturnValuesOnConditionCheckFailure: ALL_OLD` to dynalite, once per process: its condition check
 * (`db.checkConditional`, called by PutItem, UpdateItem and DeleteItem with the stored item) puts that item
 * in the refusal, and the three actions accept the parameter (dynalite drops unknown ones).
 */
function patchReturnValuesOnConditionCheckFailure(): void {
  const require = createRequire(import.meta.url);
  type Check = (data: Json, existing?: Json) => { body?: Json } | null | undefined;
  const db = require('dynalite/db/index.js') as { checkConditional: Check & { patched?: true } };
  if (db.checkConditional.patched) return;
  for (const action of ['putItem', 'updateItem', 'deleteItem']) {
    const { types } = require(`dynalite/validations/${action}.js`) as { types: Json };
    types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
  }
  const original = db.checkConditional;
  const patched: Check & { patched?: true } = (data, existing) => {
    const refusal = original(data, existing);
    if (refusal?.body && existing && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
      refusal.body.Item = existing;
    }
    return refusal;
  };
  patched.patched = true;
  db.checkConditional = patched;
}
type AttributeMap = Record<string, unknown>;

interface DynamoAnswer {
  status: number;
  body: Json;
}

/** One request to dynalite with the client's signing headers and another target. */
type Call = (action: string, body: Json) => Promise<DynamoAnswer>;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, { status, body }: DynamoAnswer): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(text),
    // The SDK checks the body against this checksum.
    'x-amz-crc32': String(crc32(text)),
  });
  response.end(text);
}

/** Locks by name: `run(names, task)` runs `task` once it holds every named lock, in arrival order per name. */
function itemLocks() {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(names: readonly string[], task: () => Promise<T>): Promise<T> => {
    const sorted = [...new Set(names)].sort();
    const releases: (() => void)[] = [];
    for (const name of sorted) {
      const previous = tails.get(name) ?? Promise.resolve();
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = previous.then(() => held);
      tails.set(name, tail);
      releases.push(() => {
        release();
        if (tails.get(name) === tail) tails.delete(name);
      });
      await previous;
    }
    try {
      return await task();
    } finally {
      for (const release of releases) release();
    }
  };
}

/** The lock name of one item. */
function itemName(tableName: string, key: AttributeMap): string {
  return `${tableName} ${JSON.stringify(Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}

/** The key attributes of `item` for a table whose key attributes are `keyNames`. */
function keyOf(item: AttributeMap, keyNames: readonly string[]): AttributeMap {
  return Object.fromEntries(keyNames.map((name) => [name, item[name]]));
}

/** The key attribute names of a table, read once per table name. */
function keySchemas() {
  const known = new Map<string, string[]>();
  return async (call: Call, tableName: string): Promise<string[]> => {
    const cached = known.get(tableName);
    if (cached) return cached;
    const { body } = await call('DescribeTable', { TableName: tableName });
    const table = body.Table as { KeySchema?: { AttributeName: string }[] } | undefined;
    const names = (table?.KeySchema ?? []).map((key) => key.AttributeName);
    known.set(tableName, names);
    return names;
  };
}

async function currentItem(
  call: Call,
  tableName: string,
  key: AttributeMap,
): Promise<AttributeMap | undefined> {
  const { body } = await call('GetItem', { TableName: tableName, Key: key, ConsistentRead: true });
  return body.Item as AttributeMap | undefined;
}

/** The single-item request that applies one `TransactItems` entry, and the item it touches. */
async function transactAction(
  entry: Json,
  keyNamesOf: (tableName: string) => Promise<string[]>,
): Promise<{ action: string; request: Json; tableName: string; key: AttributeMap }> {
  const [kind, operation] = Object.entries(entry)[0] as [string, Json];
  const tableName = operation.TableName as string;
  if (kind === 'Put') {
    const key = keyOf(operation.Item as AttributeMap, await keyNamesOf(tableName));
    return { action: 'PutItem', request: operation, tableName, key };
  }
  const key = operation.Key as AttributeMap;
  if (kind === 'Update') return { action: 'UpdateItem', request: operation, tableName, key };
  if (kind === 'Delete') return { action: 'DeleteItem', request: operation, tableName, key };
  // ConditionCheck: a conditional write that leaves the item as it is, filled in once the item is read.
  return { action: 'ConditionCheck', request: operation, tableName, key };
}

/** Restores `item` (or its absence) at `key` of `tableName`. */
async function restore(call: Call, tableName: string, key: AttributeMap, item: AttributeMap | undefined) {
  if (item) await call('PutItem', { TableName: tableName, Item: item });
  else await call('DeleteItem', { TableName: tableName, Key: key });
}

async function transactWriteItems(
  call: Call,
  body: Json,
  keyNamesOf: (t: string) => Promise<string[]>,
  locked: Locks,
): Promise<DynamoAnswer> {
  const entries = (body.TransactItems ?? []) as Json[];
  const actions = await Promise.all(entries.map((entry) => transactAction(entry, keyNamesOf)));
  const names = actions.map(({ tableName, key }) => itemName(tableName, key));
  if (new Set(names).size !== actions.length) {
    const message = 'Transaction request cannot include multiple operations on one item';
    return { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message } };
  }
  return locked(names, () => applyTransaction(call, actions));
}

type Locks = ReturnType<typeof itemLocks>;
type TransactAction = Awaited<ReturnType<typeof transactAction>>;

/**
 * Applies the actions in order, each write asking for the item it replaced (`ReturnValues: ALL_OLD`, so no
 * read is needed to undo it; a `ConditionCheck` reads its item first). On a refusal, restores what was written
 * and answers the cancellation.
 */
async function applyTransaction(call: Call, actions: TransactAction[]): Promise<DynamoAnswer> {
  const replaced: (AttributeMap | undefined)[] = [];
  for (const [index, { action, request, tableName, key }] of actions.entries()) {
    let single = { action, request: { ...request, ReturnValues: 'ALL_OLD' } as Json };
    if (action === 'ConditionCheck') {
      const old = await currentItem(call, tableName, key);
      single = old
        ? { action: 'PutItem', request: { ...request, Key: undefined, Item: old } }
        : { action: 'DeleteItem', request };
    }
    const answer = await call(single.action, single.request);
    replaced.push(answer.body.Attributes as AttributeMap | undefined);
    if (answer.status === 200) continue;
    for (let undo = index - 1; undo >= 0; undo--) {
      const done = actions[undo] as TransactAction;
      await restore(call, done.tableName, done.key, replaced[undo]);
    }
    if (answer.body.__type !== conditionFailed) return answer;
    // With ReturnValuesOnConditionCheckFailure ALL_OLD the refused action's reason carries the item.
    const refused = {
      Code: 'ConditionalCheckFailed',
      Message: 'The conditional request failed',
      ...(answer.body.Item ? { Item: answer.body.Item } : {}),
    };
    const reasons = actions.map((_, at) => (at === index ? refused : { Code: 'None' }));
    const codes = reasons.map((reason) => reason.Code).join(', ');
    return {
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
        CancellationReasons: reasons,
      },
    };
  }
  return { status: 200, body: {} };
}

/**
 * Runs one DynamoDB request through dynalite's own listener in-process: a readable request carrying `body`
 * and a response that collects what dynalite writes.
 */
function dispatch(
  listener: RequestListener,
  headers: Record<string, string>,
  action: string,
  body: Json,
): Promise<DynamoAnswer> {
  const request = Object.assign(Readable.from([Buffer.from(JSON.stringify(body))]), {
    method: 'POST',
    url: '/',
    headers: { ...headers, 'x-amz-target': `${targetPrefix}${action}` },
  });
  return new Promise((resolve) => {
    const response = {
      statusCode: 200,
      setHeader: () => {},
      end: (text?: string) =>
        resolve({ status: response.statusCode, body: text ? (JSON.parse(text) as Json) : {} }),
    };
    listener(request as unknown as IncomingMessage, response as unknown as ServerResponse);
  });
}

/**
 * The front for dynalite's request listener `dynalite`: every request passes unchanged except a transaction
 * and, while one runs, single-item writes. Each holds a lock on every item it touches (taken in one order: no
 * deadlock); a transaction's actions are applied in order with dynalite's own single-item requests and, when
 * one is refused, the items already written get their old values back (`TransactionCanceledException`).
 * Readers are not isolated from a transaction in progress (the service never reads across items that way);
 * `BatchWriteItem` has no conditions and takes no lock.
 */
export function dynaliteFront(dynalite: RequestListener): RequestListener {
  patchReturnValuesOnConditionCheckFailure();
  const locked = itemLocks();
  const keySchema = keySchemas();
  /** Transactions in progress: while there are none, plain single-item writes need no lock. */
  let transactions = 0;
  return async (request, response) => {
    const action = (request.headers['x-amz-target'] ?? '').toString().replace(targetPrefix, '');
    const lockedWrite = singleWrites.has(action) && transactions > 0;
    if (action !== 'TransactWriteItems' && !lockedWrite) {
      dynalite(request, response);
      return;
    }
    const text = await readBody(request);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && name !== 'content-length') headers[name] = value;
    }
    const call: Call = (target, body) => dispatch(dynalite, headers, target, body);
    const keyNamesOf = (tableName: string) => keySchema(call, tableName);
    try {
      const body = JSON.parse(text) as Json;
      if (action === 'TransactWriteItems') {
        transactions++;
        try {
          return send(response, await transactWriteItems(call, body, keyNamesOf, locked));
        } finally {
          transactions--;
        }
      }
      const tableName = body.TableName as string;
      const key =
        (body.Key as AttributeMap | undefined) ??
        keyOf((body.Item ?? {}) as AttributeMap, await keyNamesOf(tableName));
      send(response, await locked([itemName(tableName, key)], () => call(action, body)));
    } catch {
      const type = 'com.amazon.coral.service#SerializationException';
      send(response, { status: 400, body: { __type: type } });
    }
  };
}
