/**
 * Everything this package adds to dynalite, in one place (its other two pieces: `dynalite.d.ts`, the types of
 * the parts of dynalite used here, and patches/dynalite+4.0.0.patch, applied by this package's `postinstall`
 * (patch-dynalite.ts), which releases LevelDB iterators with `close()`). dynalite gains: `TransactWriteItems`, with its
 * `ClientRequestToken` ({@link TransactionTokens}); `ALL_OLD` on refusals; every write one atomic LevelDB batch
 * (README.md "The embedded DynamoDB"); and table streams (CreateTable and UpdateTable
 * `StreamSpecification`) whose records are written in that batch (change-stream.ts).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import dynalite, { type DynaliteOptions } from 'dynalite';
import type { LevelOperation, LevelStore } from '../common/level-store.ts';
import {
  type AttributeMap,
  ChangeStream,
  type ItemChange,
  type StreamTable,
  streamLabel,
} from './change-stream.ts';

const require = createRequire(import.meta.url);
const targetPrefix = 'DynamoDB_20120810.';
const conditionFailed = 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException';

type Json = Record<string, unknown>;
type Callback<T = unknown> = (
  error: (Error & { statusCode?: number; body?: Json }) | null,
  value?: T,
) => void;

/** A table as dynalite describes it. */
type Table = StreamTable;

/** dynalite's store (`dynalite/db/index.js` `create`): its LevelDB, sub-stores and tables. */
interface Store {
  db: { batch(operations: LevelOperation[], callback: Callback): void } & LevelStore;
  /** The table descriptions, by table name. */
  tableDb: { put(key: string, value: Json, callback: Callback): void };
  getItemDb(tableName: string): SubStore;
  getTable(tableName: string, callback: Callback<Table>): void;
}

/** One of dynalite's sub-stores: the keys of one table's items or of one index, prefixed in the main database. */
interface SubStore {
  get(key: string, callback: Callback): void;
  put(key: string, value: unknown, callback: Callback): void;
  del(key: string, callback: Callback): void;
  /** dynalite's per-key lock (`lock` package): `exec` gets `release`, which wraps a callback to release first. */
  lock(key: string, exec: (release: (done: Callback) => Callback) => void): void;
}

/** The parts of `dynalite/db/index.js` used and replaced here. */
interface DynaliteDb {
  create(options: DynaliteOptions): Store;
  createKey(item: AttributeMap, table: Table): string;
  getIndexActions(
    indexes: unknown[],
    existing: AttributeMap | undefined,
    item: AttributeMap | null | undefined,
    table: Table,
  ): {
    puts: { index: string; key: string; item: AttributeMap }[];
    deletes: { index: string; key: string }[];
  };
  checkConditional: ((data: Json, existing?: AttributeMap) => { body?: Json } | null | undefined) & {
    patched?: true;
  };
  updateIndexes(
    store: Store,
    table: Table,
    existing: AttributeMap | undefined,
    item: AttributeMap | null,
    callback: Callback,
  ): void;
}

const dynaliteDb = require('dynalite/db/index.js') as DynaliteDb;

/**
 * The LevelDB key of an item or an index entry, as dynalite's sub-stores prefix them (`getItemDb`, `getIndexDb`
 * and `createPrefixedDbWrapper` in dynalite/db/index.js).
 */
const levelKey = {
  item: (table: Table, key: string) => `item-${table.TableName}~${key}`,
  index: (kind: 'Local' | 'Global', table: Table, indexName: string, key: string) =>
    `index-${kind.toLowerCase()}~${table.TableName}~${indexName}~${key}`,
};

/**
 * The LevelDB operations that replace `existing` by `item` (null: deletes it): the item and every index entry
 * (dynalite's own `getIndexActions`), old index entries removed before new ones are written.
 */
function writeOperations(
  table: Table,
  existing: AttributeMap | undefined,
  item: AttributeMap | null,
): LevelOperation[] {
  const deletes: LevelOperation[] = [];
  const puts: LevelOperation[] = [];
  for (const kind of ['Local', 'Global'] as const) {
    const indexes =
      (table as unknown as Record<string, unknown[] | undefined>)[`${kind}SecondaryIndexes`] ?? [];
    const actions = dynaliteDb.getIndexActions(indexes, existing, item, table);
    for (const { index, key } of actions.deletes) {
      deletes.push({ type: 'del', key: levelKey.index(kind, table, index, key) });
    }
    for (const { index, key, item: projected } of actions.puts) {
      puts.push({ type: 'put', key: levelKey.index(kind, table, index, key), value: projected });
    }
  }
  const key = levelKey.item(table, dynaliteDb.createKey((item ?? existing) as AttributeMap, table));
  const write: LevelOperation = item ? { type: 'put', key, value: item } : { type: 'del', key };
  return [...deletes, ...puts, write];
}

/** What a set of writes would do: its LevelDB operations and its item changes (for the stream). */
interface WriteSet {
  operations: LevelOperation[];
  changes: ItemChange[];
}

/** The write sets of staging stores (see {@link stagingStore}): what their writes would do, not yet done. */
const stagedWrites = new WeakMap<Store, WriteSet>();

/** The change stream of each store made by {@link embeddedDynalite}. */
const changeStreams = new WeakMap<Store, ChangeStream>();

/**
 * Patches dynalite's module once per process. `checkConditional` (called by PutItem, UpdateItem and DeleteItem
 * with the stored item) puts that item in a refusal asked with `ReturnValuesOnConditionCheckFailure: ALL_OLD`,
 * and the three actions accept the parameter (dynalite drops unknown ones). `updateIndexes` (called by the
 * same three with the old and the new item, before they write the item itself) writes the index entries and
 * the item in one LevelDB batch, so that no crash can leave an index disagreeing with its table (the action's
 * own write of the item that follows rewrites the same value), with the stream record of the change when the
 * table has a stream (change-stream.ts); for a staging store it only records them. CreateTable keeps
 * `StreamSpecification` (dynalite drops it).
 */
function patchDynalite(): void {
  if (dynaliteDb.checkConditional.patched) return;
  for (const action of ['putItem', 'updateItem', 'deleteItem']) {
    const { types } = require(`dynalite/validations/${action}.js`) as { types: Json };
    types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
  }
  const createTable = require('dynalite/validations/createTable.js') as { types: Json };
  createTable.types.StreamSpecification = {
    type: 'FieldStruct<StreamSpecification>',
    children: {
      StreamEnabled: { type: 'Boolean', notNull: true },
      StreamViewType: {
        type: 'String',
        enum: ['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY'],
      },
    },
  };
  const original = dynaliteDb.checkConditional;
  const checkConditional: DynaliteDb['checkConditional'] = (data, existing) => {
    const refusal = original(data, existing);
    if (refusal?.body && existing && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
      refusal.body.Item = existing;
    }
    return refusal;
  };
  checkConditional.patched = true;
  dynaliteDb.checkConditional = checkConditional;
  keepParsedConditions();
  dynaliteDb.updateIndexes = (store, table, existing, item, callback) => {
    if (!existing && !item) return callback(null);
    const operations = writeOperations(table, existing, item);
    const change: ItemChange = { table, oldImage: existing ?? null, newImage: item };
    const staged = stagedWrites.get(store);
    if (staged) {
      staged.operations.push(...operations);
      staged.changes.push(change);
      setImmediate(() => callback(null));
      return;
    }
    const stream = changeStreams.get(store);
    if (!stream) return store.db.batch(operations, callback);
    stream.commit(operations, [change]).then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  };
}

/** The most condition expressions {@link keepParsedConditions} keeps; past it, it starts again. */
const maxKeptConditions = 1000;

/**
 * dynalite's `validateExpressions` (each action's validation calls it through its module's exports) keeps the
 * parsed `ConditionExpression` of a request without other expressions or values (as a transaction's puts on
 * `attribute_not_exists(...)`), by its text and names: parsing it again for each entry cost a transaction most
 * of its validation. A parse that fails is not kept; the parsed condition is only read by dynalite's actions.
 */
function keepParsedConditions(): void {
  const validations = validationsModule() as ReturnType<typeof validationsModule> & {
    validateExpressions(data: Json): string | undefined;
  };
  const original = validations.validateExpressions;
  const kept = new Map<string, unknown>();
  const others = [
    'UpdateExpression',
    'KeyConditionExpression',
    'FilterExpression',
    'ProjectionExpression',
    'ExpressionAttributeValues',
  ];
  validations.validateExpressions = (data: Json) => {
    if (typeof data.ConditionExpression !== 'string' || others.some((name) => data[name] != null)) {
      return original(data);
    }
    const key = JSON.stringify([data.ConditionExpression, data.ExpressionAttributeNames ?? null]);
    const parsed = kept.get(key);
    if (parsed !== undefined) {
      data._condition = parsed;
      return undefined;
    }
    const message = original(data);
    if (message === undefined && data._condition !== undefined) {
      if (kept.size >= maxKeptConditions) kept.clear();
      kept.set(key, data._condition);
    }
    return message;
  };
}

/**
 * A view of `store` on which dynalite's PutItem, UpdateItem and DeleteItem decide as usual (conditions checked
 * on the stored item, under dynalite's lock of that item) but write nothing: what they would write is added to
 * `writes`, and each item lock is kept until `releases` are called, so that no other write slips in between
 * the decision and the transaction's batch.
 */
function stagingStore(store: Store, writes: WriteSet, releases: (() => void)[]): Store {
  const staging: Store = Object.create(store);
  staging.getItemDb = (tableName) => {
    const items = store.getItemDb(tableName);
    return {
      get: items.get,
      put: (_key, _value, callback) => setImmediate(() => callback(null)),
      del: (_key, callback) => setImmediate(() => callback(null)),
      lock: (key, exec) =>
        items.lock(key, (release) => {
          const done = release(() => {});
          releases.push(() => done(null));
          exec((done) => done);
        }),
    };
  };
  stagedWrites.set(staging, writes);
  return staging;
}

/** dynalite's single-item action of each kind of `TransactItems` entry (a ConditionCheck: a DeleteItem staged and dropped). */
const actionOf = {
  Put: 'putItem',
  Update: 'updateItem',
  Delete: 'deleteItem',
  ConditionCheck: 'deleteItem',
} as const;
type TransactKind = keyof typeof actionOf;

/** A DynamoDB answer: HTTP status and JSON body. */
interface DynamoAnswer {
  status: number;
  body: Json;
}

/** An error answer of dynalite (`statusCode` and `body`), thrown by its validations and actions. */
class Refusal extends Error {
  readonly answer: DynamoAnswer;
  constructor(answer: DynamoAnswer) {
    super(String(answer.body.message ?? answer.body.__type));
    this.answer = answer;
  }
}

/** Turns dynalite's error (`statusCode`, `body`) into a {@link Refusal}; rethrows any other. */
function refusal(error: Error & { statusCode?: number; body?: Json }): Refusal {
  if (error.statusCode && error.body) return new Refusal({ status: error.statusCode, body: error.body });
  throw error;
}

/** dynalite's request validation (`checkTypes`, `checkValidations`), loaded once. */
const validationsModule = once(
  () =>
    require('dynalite/validations/index.js') as {
      checkTypes(data: Json, types: Json): Json;
      checkValidations(data: Json, types: Json, custom: unknown, store: Store): void;
    },
);

/** A module of dynalite's, by path, loaded once: a transaction's every entry would otherwise resolve it again. */
function moduleCache<T>(path: (name: string) => string): (name: string) => T {
  const loaded = new Map<string, T>();
  return (name) => {
    let module = loaded.get(name);
    if (module === undefined) {
      module = require(path(name)) as T;
      loaded.set(name, module);
    }
    return module;
  };
}

/** The validation of dynalite's single-item action `name` (`putItem`, ...). */
const actionValidations = moduleCache<{ types: Json; custom: unknown }>(
  (name) => `dynalite/validations/${name}.js`,
);

/** dynalite's single-item action `name`. */
const actionModule = moduleCache<(store: Store, data: Json, callback: Callback) => void>(
  (name) => `dynalite/actions/${name}.js`,
);

/** `load`'s value, loaded at the first call. */
function once<T>(load: () => T): () => T {
  let value: { loaded: T } | undefined;
  return () => {
    value ??= { loaded: load() };
    return value.loaded;
  };
}

/** One `TransactItems` entry, validated as dynalite validates the single-item request it stands for. */
interface TransactAction {
  kind: TransactKind;
  data: Json;
  table: Table;
  /** The item's key attributes. */
  key: AttributeMap;
}

async function tableOf(store: Store, tableName: string): Promise<Table> {
  return new Promise((resolve, reject) =>
    store.getTable(tableName, (error, table) => (error ? reject(refusal(error)) : resolve(table as Table))),
  );
}

/**
 * The entry as dynalite's own request validation reads it (`checkTypes`, `checkValidations`: expressions parsed).
 * @throws Refusal with dynalite's validation error
 */
async function transactAction(
  store: Store,
  entry: Json,
  tables: Map<string, Promise<Table>>,
): Promise<TransactAction> {
  const [kind, operation] = Object.entries(entry)[0] as [TransactKind, Json];
  const validations = validationsModule();
  const { types, custom } = actionValidations(actionOf[kind]);
  let data: Json;
  try {
    data = validations.checkTypes(operation, types);
    validations.checkValidations(data, types, custom, store);
  } catch (error) {
    throw refusal(error as Error);
  }
  // One description per table and transaction, read only.
  const tableName = data.TableName as string;
  let described = tables.get(tableName);
  if (!described) {
    described = tableOf(store, tableName);
    tables.set(tableName, described);
  }
  const table = await described;
  const item = (kind === 'Put' ? data.Item : data.Key) as AttributeMap;
  const key = Object.fromEntries(
    table.KeySchema.map(({ AttributeName }) => [AttributeName, item[AttributeName]]),
  );
  return { kind, data, table, key };
}

/** Runs dynalite's single-item `action` on `store`. @throws Refusal with its error answer */
function runAction(store: Store, action: string, data: Json): Promise<void> {
  const run = actionModule(action);
  return new Promise((resolve, reject) =>
    run(store, data, (error) => {
      if (!error) return resolve();
      try {
        reject(refusal(error));
      } catch (other) {
        reject(other);
      }
    }),
  );
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
type Locks = ReturnType<typeof itemLocks>;

/** The lock name of one item. */
function itemName({ table, key }: TransactAction): string {
  return `${table.TableName} ${JSON.stringify(Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}

/** DynamoDB's answer to a transaction whose action `index` was refused (`refused`: dynalite's refusal body). */
function cancellation(count: number, index: number, refused: Json): DynamoAnswer {
  const reason = {
    Code: 'ConditionalCheckFailed',
    Message: 'The conditional request failed',
    // With ReturnValuesOnConditionCheckFailure ALL_OLD the refusal carries the item.
    ...(refused.Item ? { Item: refused.Item } : {}),
  };
  const reasons = Array.from({ length: count }, (_, at) => (at === index ? reason : { Code: 'None' }));
  return {
    status: 400,
    body: {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
      CancellationReasons: reasons,
    },
  };
}

/**
 * Decides every action in order on a staging store (each item's dynalite lock held from its decision on), then
 * writes all they would write, and `tokenRecord` (its ClientRequestToken's, {@link TransactionTokens}), in one
 * LevelDB batch: all or nothing, for readers and across a crash alike. The first refused action cancels the
 * transaction with nothing written.
 */
async function applyTransaction(
  store: Store,
  actions: TransactAction[],
  tokenRecord: LevelOperation[],
): Promise<DynamoAnswer> {
  const writes: WriteSet = { operations: [], changes: [] };
  const releases: (() => void)[] = [];
  try {
    for (const [index, { kind, data }] of actions.entries()) {
      // A ConditionCheck's DeleteItem is decided like the others, and what it would write is dropped.
      const dropped: WriteSet = { operations: [], changes: [] };
      const staging = stagingStore(store, kind === 'ConditionCheck' ? dropped : writes, releases);
      try {
        await runAction(staging, actionOf[kind], data);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        if (error.answer.body.__type !== conditionFailed) return error.answer;
        return cancellation(actions.length, index, error.answer.body);
      }
    }
    writes.operations.push(...tokenRecord);
    const stream = changeStreams.get(store);
    if (stream) await stream.commit(writes.operations, writes.changes);
    else {
      await new Promise((resolve, reject) =>
        store.db.batch(writes.operations, (error) => (error ? reject(error) : resolve(undefined))),
      );
    }
    return { status: 200, body: {} };
  } finally {
    for (const release of releases) release();
  }
}

/**
 * `TransactWriteItems`: validated, its `ClientRequestToken` honoured (`tokens`), each item locked (in one
 * order: no deadlock between transactions), applied.
 */
async function transactWriteItems(
  store: Store,
  locked: Locks,
  tokens: TransactionTokens,
  body: Json,
): Promise<DynamoAnswer> {
  const entries = (body.TransactItems ?? []) as Json[];
  let actions: TransactAction[];
  try {
    const tables = new Map<string, Promise<Table>>();
    actions = await Promise.all(entries.map((entry) => transactAction(store, entry, tables)));
  } catch (error) {
    if (error instanceof Refusal) return error.answer;
    throw error;
  }
  const names = actions.map(itemName);
  if (new Set(names).size !== actions.length) {
    const message = 'Transaction request cannot include multiple operations on one item';
    return { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message } };
  }
  return tokens.once(body, (tokenRecord) =>
    locked(names, () => applyTransaction(store, actions, tokenRecord)),
  );
}

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

/** `request` again, its body `text` still to be read (for dynalite's own listener, which reads it). */
function replay(request: IncomingMessage, text: string): IncomingMessage {
  return Object.assign(Readable.from(text.length > 0 ? [Buffer.from(text)] : []), {
    method: request.method,
    url: request.url,
    headers: request.headers,
    socket: request.socket,
  }) as unknown as IncomingMessage;
}

/** A ValidationException answer with `message`. */
function validationError(message: string): DynamoAnswer {
  return { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message } };
}

/**
 * UpdateTable with `StreamSpecification` (dynalite has none): turns on the table's stream, labelled with the
 * time it is turned on; records start with the next write, as DynamoDB's do. Only enabling, and only on its
 * own, is served: turning a stream off, or a stream change with other updates, is a ValidationException.
 */
async function enableStream(store: Store, body: Json): Promise<DynamoAnswer> {
  let table: Table & Json;
  try {
    // A copy: the kept description is shared with the item actions (embeddedDynalite).
    table = structuredClone(await tableOf(store, String(body.TableName))) as Table & Json;
  } catch (error) {
    if (error instanceof Refusal) return error.answer;
    throw error;
  }
  const specification = (body.StreamSpecification ?? {}) as Table['StreamSpecification'] & Json;
  const others = ['ProvisionedThroughput', 'BillingMode', 'GlobalSecondaryIndexUpdates', 'SSESpecification'];
  if (others.some((name) => body[name] !== undefined)) {
    return validationError('the local store serves StreamSpecification only in an UpdateTable of its own');
  }
  if (specification.StreamEnabled !== true) {
    return validationError('the local store serves enabling a stream only (StreamEnabled: true)');
  }
  if (table.StreamSpecification?.StreamEnabled) {
    return validationError(`Table already has an enabled stream: ${table.LatestStreamArn}`);
  }
  table.StreamSpecification = {
    StreamEnabled: true,
    StreamViewType: specification.StreamViewType ?? 'NEW_AND_OLD_IMAGES',
  };
  table.LatestStreamLabel = streamLabel(Date.now() / 1000);
  table.LatestStreamArn = `${String(table.TableArn)}/stream/${table.LatestStreamLabel}`;
  await new Promise((resolve, reject) =>
    store.tableDb.put(table.TableName, table, (error) => (error ? reject(error) : resolve(undefined))),
  );
  return { status: 200, body: { TableDescription: table } };
}

/** The region in the store's ARNs, as dynalite sets it (`dynalite/db/index.js` `create`). */
function storeRegion(): string {
  return process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1';
}

/**
 * Gives a table created with `StreamSpecification.StreamEnabled` its `LatestStreamLabel` and `LatestStreamArn`
 * (`<TableArn>/stream/<creation time>`, as DynamoDB names streams) as dynalite stores its description.
 */
function keepStreamArns(store: Store): void {
  const put = store.tableDb.put;
  store.tableDb.put = (key, value, callback) => {
    const table = value as Json & { StreamSpecification?: { StreamEnabled?: boolean } };
    if (table.StreamSpecification?.StreamEnabled && !table.LatestStreamArn) {
      table.LatestStreamLabel = streamLabel(Number(table.CreationDateTime));
      table.LatestStreamArn = `${String(table.TableArn)}/stream/${table.LatestStreamLabel}`;
    }
    put(key, value, callback);
  };
}

/** The change stream of a server made by {@link embeddedDynalite}. */
const serverStreams = new WeakMap<Server, ChangeStream>();

/** The main LevelDB of a server made by {@link embeddedDynalite}. */
const serverDbs = new WeakMap<Server, LevelStore>();

/**
 * The main LevelDB of `server`, made by {@link embeddedDynalite}: for what the local AWS keeps beside the tables
 * under its own key prefix (queue-journal.ts). @throws for another server
 */
export function levelDbOf(server: Server): LevelStore {
  const db = serverDbs.get(server);
  if (!db) throw new Error('not an embedded DynamoDB server');
  return db;
}

/** The change stream of `server`, made by {@link embeddedDynalite}. @throws for another server */
export function changeStreamOf(server: Server): ChangeStream {
  const stream = serverStreams.get(server);
  if (!stream) throw new Error('not an embedded DynamoDB server');
  return stream;
}

/**
 * A dynalite server (`options` as dynalite's) whose every write is one atomic LevelDB batch and which serves
 * `TransactWriteItems`: a transaction's actions are decided in order by dynalite's own single-item actions on a
 * staging store, then written in one batch (README.md "The embedded DynamoDB": why a batch rather
 * than a journal). Other requests reach dynalite unchanged. Readers never see half a transaction.
 */
export function embeddedDynalite(options: DynaliteOptions): Server {
  patchDynalite();
  // dynalite keeps its store private: it is taken here as dynalite creates it (synchronously, in `dynalite()`).
  const create = dynaliteDb.create;
  let store: Store | undefined;
  dynaliteDb.create = (createOptions) => {
    store = create(createOptions);
    return store;
  };
  let server: Server;
  try {
    server = dynalite(options);
  } finally {
    dynaliteDb.create = create;
  }
  const own = store as Store;
  keepStreamArns(own);
  // Every request reads its table's description from LevelDB: the active ones are kept here and forgotten when a
  // description is written or removed. The item actions (`getTable(name, callback)`) only read it and share the
  // kept one; the table actions (`getTable(name, checkStatus, callback)`: UpdateTable, DeleteTable, ...) may
  // change it and get a copy, as from LevelDB.
  const tableDb = own.tableDb as Store['tableDb'] & { del(key: string, callback: Callback): void };
  const [descriptions, { getTable }, { put, del }] = [new Map<string, Table>(), own, tableDb];
  let writes = 0;
  tableDb.put = (key, value, callback) => {
    writes += 1;
    descriptions.delete(key);
    put.call(tableDb, key, value, callback);
  };
  tableDb.del = (key, callback) => {
    writes += 1;
    descriptions.delete(key);
    del.call(tableDb, key, callback);
  };
  own.getTable = (name: string, ...rest: unknown[]) => {
    const callback = rest.at(-1) as Callback<Table>;
    const kept = descriptions.get(name);
    if (kept) return void process.nextTick(callback, null, rest.length > 1 ? structuredClone(kept) : kept);
    const before = writes;
    (getTable as (...args: unknown[]) => void).call(own, name, ...rest.slice(0, -1), ((error, table) => {
      const active = !error && (table as { TableStatus?: string } | undefined)?.TableStatus === 'ACTIVE';
      if (active && writes === before) descriptions.set(name, structuredClone(table as Table));
      callback(error, table);
    }) as Callback<Table>);
  };
  const stream = new ChangeStream(own.db, storeRegion());
  changeStreams.set(own, stream);
  serverStreams.set(server, stream);
  serverDbs.set(server, own.db);
  const locked = itemLocks();
  const tokens = new TransactionTokens(own.db);
  const [dynaliteListener] = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', async (request, response) => {
    const action = (request.headers['x-amz-target'] ?? '').toString().replace(targetPrefix, '');
    if (action !== 'TransactWriteItems' && action !== 'UpdateTable') {
      return dynaliteListener?.(request, response);
    }
    try {
      const text = await readBody(request);
      if (action === 'UpdateTable') {
        const body = JSON.parse(text) as Json;
        if (body.StreamSpecification === undefined)
          return dynaliteListener?.(replay(request, text), response);
        return send(response, await enableStream(own, body));
      }
      send(response, await transactWriteItems(own, locked, tokens, JSON.parse(text) as Json));
    } catch (error) {
      const serialization = error instanceof SyntaxError;
      send(response, {
        status: serialization ? 400 : 500,
        body: {
          __type: serialization
            ? 'com.amazon.coral.service#SerializationException'
            : 'com.amazonaws.dynamodb.v20120810#InternalServerError',
        },
      });
    }
  });
  return server;
}

// `ClientRequestToken` of the embedded store's `TransactWriteItems`, as DynamoDB documents it
// (behaviour.md "DynamoDB transactions", row X1; API reference, TransactWriteItems,
// ClientRequestToken): a repeat of a committed transaction with the same token and the same request within 10
// minutes of its completion succeeds and writes nothing again; the same token with another request is
// `IdempotentParameterMismatchException`; a repeat while the first still runs is
// `TransactionInProgressException`.

/** How long a token names its committed transaction, in milliseconds (DynamoDB: 10 minutes). */
export const tokenWindowMs = 10 * 60 * 1000;
/** Expired tokens are removed at most this often, in milliseconds. */
const trimEveryMs = 60 * 1000;

/** A token's record, written in the batch of the transaction it names. */
interface TokenRecord {
  /** {@link requestDigest} of the transaction's request. */
  digest: string;
  /** When the transaction committed: epoch milliseconds. */
  committedAt: number;
}

/** An answer of the store: HTTP status and JSON body. */
export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The LevelDB key of a token's record: a prefix of its own beside dynalite's (`table~`, `item-...`, `index-...`). */
const recordKey = (token: string) => `transaction-token~${token}`;
const firstKey = 'transaction-token~';
const endKey = 'transaction-token\u007f';

/** JSON text of `value` with every object's members sorted by name: equal requests, equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 hex of a TransactWriteItems request's parameters, the token itself left out. */
export function requestDigest(body: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson({ ...body, ClientRequestToken: undefined }))
    .digest('hex');
}

function dynamoError(type: string, message: string): TokenAnswer {
  return { status: 400, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message } };
}

/** The tokens of one store: its committed ones in its LevelDB, the running ones in memory. */
export class TransactionTokens {
  private readonly db: LevelStore;
  private readonly clock: () => number;
  /** Token -> digest of the transactions running now. */
  private readonly running = new Map<string, string>();
  private trimmedAt = 0;

  constructor(db: LevelStore, clock: () => number = Date.now) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Runs the transaction `body` through `run` unless its token decides the answer: the repeat of a committed
   * transaction is 200 `{}` with nothing run, another request under a used token or one still running is
   * refused. `run` gets the LevelDB operation that records the token, to write in the transaction's batch.
   */
  async once(body: Record<string, unknown>, run: (record: LevelOperation[]) => Promise<TokenAnswer>) {
    const token = body.ClientRequestToken;
    if (typeof token !== 'string') return run([]);
    const digest = requestDigest(body);
    const running = this.running.get(token);
    if (running !== undefined) {
      return running === digest
        ? dynamoError('TransactionInProgressException', 'Transaction is in progress')
        : dynamoError(
            'IdempotentParameterMismatchException',
            'The client token was used with another request',
          );
    }
    this.running.set(token, digest);
    try {
      const committed = await this.committed(token);
      if (committed) {
        return committed.digest === digest
          ? { status: 200, body: {} }
          : dynamoError(
              'IdempotentParameterMismatchException',
              'The client token was used with another request',
            );
      }
      const record: TokenRecord = { digest, committedAt: this.clock() };
      return await run([{ type: 'put', key: recordKey(token), value: record }]);
    } finally {
      this.running.delete(token);
      await this.trim();
    }
  }

  /** The record of `token` when it names a transaction committed less than {@link tokenWindowMs} ago. */
  private async committed(token: string): Promise<TokenRecord | undefined> {
    let record: TokenRecord;
    try {
      record = (await this.db.get(recordKey(token))) as TokenRecord;
    } catch (error) {
      if ((error as { code?: string }).code === 'LEVEL_NOT_FOUND') return undefined;
      if ((error as Error).name === 'NotFoundError') return undefined;
      throw error;
    }
    if (record === undefined || this.clock() - record.committedAt >= tokenWindowMs) return undefined;
    return record;
  }

  /** Removes the records of expired tokens, if not done in the last minute. */
  private async trim(): Promise<void> {
    const now = this.clock();
    if (now - this.trimmedAt < trimEveryMs) return;
    this.trimmedAt = now;
    const records = await this.db.iterator({ gte: firstKey, lt: endKey }).all();
    const expired = records
      .filter(([, value]) => now - (value as TokenRecord).committedAt >= tokenWindowMs)
      .map(([key]): LevelOperation => ({ type: 'del', key }));
    if (expired.length > 0) await this.db.batch(expired);
  }
}
