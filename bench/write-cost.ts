/**
 * The capacity and latency of each write kind as the service makes it, with its one-action transactions and as
 * the single-item writes they replaced: docs/performance.md "How each figure is taken", docs/architecture.md
 * "Writes exactly once".
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '#lib/admin/tables.ts';
import { tables } from '#lib/tables.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from '#test/support/dynamodb-local.ts';
import { type ProxyRequest, restProxyEvent } from '#test/support/lambda-events.ts';
import { invokeHandler, lambdaContext } from '#test/support/lambda-invoke.ts';
import { serviceTables, storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';
import { startTestStore } from '#test/support/testing-kit.ts';
import { childMain, inChild, median } from './processes.ts';

/** The stores measured: the embedded one (dynalite and the local AWS's transactions) and AWS's DynamoDB Local. */
export type WriteCostStore = 'embedded' | 'dynamoDbLocal';

/**
 * One way of a write kind, per write (means): write and read units, DynamoDB requests and those of them answered
 * without `ConsumedCapacity` (the embedded store's transactions); p50 ms of the handler's invocation.
 */
export interface WriteWay {
  wcu: number;
  rcu: number;
  requests: number;
  unreported: number;
  p50Ms: number;
}

/** Per write kind, the way it is made now and, where a one-action transaction replaced a single-item write, before. */
export interface WriteCost {
  kind: string;
  after: WriteWay;
  before?: WriteWay;
}

/** The table of {@link WriteCost}s on `store`, each way invoked `iterations` times (alternating), in a child. */
export const measureWriteCost = (store: WriteCostStore, iterations: number) =>
  inChild(import.meta.url, writeCost, { store, iterations });

const writeCommands = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

type Units = { CapacityUnits?: number };
type TransactAction = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** True for an Idempotency-Key's claim Put (lib/idempotency/claim.ts): its item's `id` names the claim. */
const isClaim = (action: TransactAction) => String(action.Put?.Item?.id ?? '').includes('Claim#');

/**
 * The write a transaction stood for before the one-action transactions and the claims came (docs/architecture.md
 * "Writes exactly once"): its Idempotency-Key claim left out, and a single action left sent as the single-item
 * command with the same item, expression, condition and values.
 */
function formerWrite(input: TransactWriteCommandInput) {
  const actions = (input.TransactItems ?? []).filter((action) => !isClaim(action));
  const [action] = actions;
  if (actions.length === 1 && action?.Put) return new PutCommand(action.Put);
  if (actions.length === 1 && action?.Update) return new UpdateCommand(action.Update);
  if (actions.length === 1 && action?.Delete) return new DeleteCommand(action.Delete);
  return new TransactWriteCommand({ ...input, TransactItems: actions });
}

/**
 * Meters every DynamoDB client of this process (the service's document client and Powertools' own): each
 * request asks `ReturnConsumedCapacity: TOTAL`, and its units are summed as write or read units. In the mode
 * `before`, a transaction is sent as the write it replaced ({@link formerWrite}).
 * @returns the switch of the mode and the meter: the requests, units and ms of `work`
 */
function meterEveryClient() {
  let [before, current] = [false, { wcu: 0, rcu: 0, requests: 0, unreported: 0 }];
  const stacks = new WeakSet<object>();
  const clientPrototype = Object.getPrototypeOf(DynamoDBClient.prototype) as {
    send(this: DynamoDBClient, command: unknown, ...rest: unknown[]): Promise<unknown>;
  };
  const send = clientPrototype.send;
  clientPrototype.send = function (command, ...rest) {
    if (!stacks.has(this.middlewareStack)) {
      stacks.add(this.middlewareStack);
      this.middlewareStack.add(
        (next, context) => async (args) => {
          const input = { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' };
          const result = await next({ ...args, input });
          const { $metadata, ConsumedCapacity } = result.output as {
            $metadata: { attempts?: number };
            ConsumedCapacity?: Units | Units[];
          };
          const units = [ConsumedCapacity ?? []]
            .flat()
            .reduce((sum, { CapacityUnits = 0 }) => sum + CapacityUnits, 0);
          current.requests += $metadata.attempts ?? 1;
          if (ConsumedCapacity === undefined) current.unreported++;
          current[writeCommands.has(context.commandName ?? '') ? 'wcu' : 'rcu'] += units;
          return result;
        },
        { step: 'initialize', name: 'benchWriteMeter', override: true },
      );
    }
    const former = before && command instanceof TransactWriteCommand ? formerWrite(command.input) : command;
    return send.call(this, former, ...rest);
  };
  return async (way: 'after' | 'before', work: () => Promise<unknown>) => {
    [before, current] = [way === 'before', { wcu: 0, rcu: 0, requests: 0, unreported: 0 }];
    const start = performance.now();
    await work();
    return { ...current, ms: performance.now() - start };
  };
}

/** Starts `store` with the service's tables and points this process's SDK and the handlers' variables at it. */
async function startStore(store: WriteCostStore): Promise<() => Promise<void>> {
  for (const [id, { env }] of Object.entries(tables))
    process.env[env] = testTableNames[id as keyof typeof tables];
  Object.assign(process.env, { AWS_REGION: 'us-east-1', POWERTOOLS_METRICS_DISABLED: 'true' });
  Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: 'ERROR', AWS_EC2_METADATA_DISABLED: 'true' });
  if (store === 'embedded') {
    const db = await startTestStore({ tables: serviceTables });
    Object.assign(process.env, storeVariables(db));
    return () => db.close();
  }
  const local: DynamoDbLocal = await startDynamoDbLocal();
  const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: local.endpoint, AWS_ACCESS_KEY_ID: 'bench' });
  process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
  delete process.env.AWS_SESSION_TOKEN;
  await ensureTables(new DynamoDBClient({ endpoint: local.endpoint, credentials }), testTableNames);
  return () => local.close();
}

const headers = { 'Content-Type': 'application/json' };
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode?: number; body?: string }>;

/** In the child: the store, the seeded entries, then each write kind after and before, alternating. */
async function writeCost({ store, iterations }: { store: WriteCostStore; iterations: number }) {
  const close = await startStore(store);
  const meter = meterEveryClient();
  const handlers = new Map<string, Handler>();
  /** The answer of the function `module` to `request`. @throws unless its status is `status` */
  const invoke = async (module: string, request: ProxyRequest, status: number) => {
    const handler = handlers.get(module) ?? (await import(`#functions/${module}/handler.ts`)).handler;
    handlers.set(module, handler);
    const [event, context] = [restProxyEvent(request), lambdaContext(module)];
    const answer = (await invokeHandler(handler as never, event, context)) as {
      statusCode?: number;
      body?: string;
    };
    if (answer.statusCode !== status) throw new Error(`${module}: ${answer.statusCode} ${answer.body}`);
    return JSON.parse(answer.body ?? 'null') as { id?: number };
  };
  const post = (path: string, body: unknown, extra: Record<string, string> = {}): ProxyRequest => ({
    ...{ method: 'POST', resource: path, path, headers: { ...headers, ...extra } },
    body: JSON.stringify(body),
  });
  const patch = (resource: string, path: string, pathParameters: Record<string, string>, body: unknown) => ({
    ...{ method: 'PATCH' as const, resource, path, pathParameters, headers },
    body: JSON.stringify(body),
  });
  // Pet 7 for the PATCHes, pet 8 with stock for the orders, pets 100 to 109 for the batches.
  for (const id of [7, 8, ...Array.from({ length: 10 }, (_, k) => 100 + k)])
    await invoke('add-pet', post('/pets', { id, name: 'Rex' }), 201);
  const stock = patch('/inventory/{petId}', '/inventory/8', { petId: '8' }, { quantity: 2147483647 });
  await invoke('update-inventory', stock, 200);
  let [next, orders] = [0, [] as string[]];
  const batchChanges = () =>
    Array.from({ length: 10 }, (_, k) => ({ petId: 100 + k, quantity: ++next % 1000 }));
  const entry = (body: unknown) => patch('/inventory/{petId}', '/inventory/7', { petId: '7' }, body);
  // `replaced`: the kind's write changed (a transaction, or a claim added); placeOrder's and an unkeyed batch's did not.
  const kinds: { kind: string; replaced: boolean; write: () => Promise<unknown> }[] = [
    {
      kind: 'PATCH',
      replaced: true,
      write: () => invoke('update-inventory', entry({ quantity: ++next % 1000 }), 200),
    },
    {
      kind: 'PATCH, Idempotency-Key',
      replaced: true,
      write: () => {
        const request = entry({ quantity: ++next % 1000 });
        return invoke(
          'update-inventory',
          { ...request, headers: { ...headers, 'Idempotency-Key': randomUUID() } },
          200,
        );
      },
    },
    {
      kind: 'addPet with id',
      replaced: true,
      write: () => invoke('add-pet', post('/pets', { id: 1e6 + ++next, name: 'Rex' }), 201),
    },
    {
      kind: 'addPet without id',
      replaced: true,
      write: () => invoke('add-pet', post('/pets', { name: 'Rex' }), 201),
    },
    {
      kind: 'placeOrder, Idempotency-Key',
      replaced: false,
      write: async () => {
        const order = post('/store/orders', { petId: 8, quantity: 1 }, { 'Idempotency-Key': randomUUID() });
        orders.push(String((await invoke('place-order', order, 201)).id));
      },
    },
    {
      kind: 'updateOrder (approve)',
      replaced: true,
      write: () => {
        const orderId = orders.shift() ?? '0';
        const moved = patch(
          '/store/orders/{orderId}',
          `/store/orders/${orderId}`,
          { orderId },
          { status: 'approved' },
        );
        return invoke('update-order', moved, 200);
      },
    },
    {
      kind: 'batchUpdateInventory, 10 changes',
      replaced: false,
      write: () =>
        invoke('batch-update-inventory', post('/inventory/batch', { changes: batchChanges() }), 200),
    },
    {
      kind: 'batchUpdateInventory, 10, Idempotency-Key',
      replaced: true,
      write: () => {
        const keyed = post(
          '/inventory/batch',
          { changes: batchChanges() },
          { 'Idempotency-Key': randomUUID() },
        );
        return invoke('batch-update-inventory', keyed, 200);
      },
    },
  ];
  const results: WriteCost[] = [];
  for (const { kind, replaced, write } of kinds) {
    // updateOrder approves the orders placeOrder placed: twice as many, warm-up included, as it is measured both ways.
    const warmUp = Math.ceil(iterations / 10);
    const rounds = kind.startsWith('placeOrder') ? 2 * iterations + warmUp : iterations;
    const ways = replaced ? (['after', 'before'] as const) : (['after'] as const);
    type Sample = Awaited<ReturnType<typeof meter>>;
    const samples: Record<'after' | 'before', Sample[]> = { after: [], before: [] };
    for (let i = -warmUp; i < rounds; i++) {
      // Warm-up first (i < 0); which goes first alternates.
      for (const way of i % 2 === 0 ? ways : [...ways].reverse()) {
        const sample = await meter(way, write);
        if (i >= 0) samples[way].push(sample);
      }
    }
    const summary = (taken: Sample[]): WriteWay => ({
      wcu: taken.reduce((sum, { wcu }) => sum + wcu, 0) / taken.length,
      rcu: taken.reduce((sum, { rcu }) => sum + rcu, 0) / taken.length,
      requests: taken.reduce((sum, { requests }) => sum + requests, 0) / taken.length,
      unreported: taken.reduce((sum, { unreported }) => sum + unreported, 0) / taken.length,
      p50Ms: median(taken.map(({ ms }) => ms)),
    });
    results.push({
      kind,
      after: summary(samples.after),
      ...(replaced ? { before: summary(samples.before) } : {}),
    });
  }
  await close();
  return results;
}

await childMain(import.meta.url, { writeCost });
