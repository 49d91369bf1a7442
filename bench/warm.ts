/**
 * Warm invocations, in-process: the three handler modules (the same modules the bundles are built from)
 * invoked directly with API Gateway events against the bench DynamoDB, beside the bare SDK call each one
 * wraps, on a second client with the same settings (`createDocumentClient`):
 * - listInventory  vs the raw sorted read of the list index (sorted-read.ts);
 * - updateInventory vs the same conditional UpdateCommand (quantity and list shard);
 * - authorizer (TOKEN event, seeded key) vs the same GetCommand.
 * Handler and bare call alternate (which one goes first alternates too), after a warm-up, so both see the
 * same state of the JIT, GC and database. Also measured here: DynamoDB requests and consumed capacity of
 * one invocation of each (bench/request-meter.ts), and the TCP connections opened across 100 invocations of
 * each (`net.client.socket` diagnostics channel) to confirm keep-alive.
 *
 * Runs in a child process (its stdout, where Powertools writes logs and EMF metrics as in Lambda, is
 * discarded); {@link measureWarm} forks it and receives the results.
 */

import { fork } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { fileURLToPath } from 'node:url';
import { attachMeter, type Metered } from './request-meter.ts';
import { type Summary, summarize } from './stats.ts';

/** Figures of one operation: latency summaries in milliseconds and one invocation's DynamoDB usage. */
export interface WarmResult {
  name: string;
  /** What the bare call is. */
  bare: string;
  handlerMs: Summary;
  bareMs: Summary;
  /** DynamoDB requests and capacity of one handler invocation. */
  handlerDb: Metered;
  /** The same for one bare call. */
  bareDb: Metered;
  /** TCP connections opened during 100 consecutive invocations (the first operation opens the pool's one). */
  socketsPer100: number;
  /**
   * The handler alone, microseconds: invocations with the client's `send` answering at once with a recorded
   * real response, so the figure is the function's own work (middy, parsing, Powertools, JSON), no database.
   */
  handlerAloneUs: Summary;
}

/** Options of a warm run. */
export interface WarmOptions {
  endpoint: string;
  /** Timed invocations of each handler (and as many bare calls). */
  iterations: number;
  /** Untimed invocations of each before timing. */
  warmup: number;
}

/** Forks this module, runs the warm measurements there, and returns them. */
export function measureWarm(options: WarmOptions): Promise<WarmResult[]> {
  const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as WarmResult[]));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`warm measurements failed (exit ${code})`));
    });
  });
}

/**
 * One operation under measurement. `prepareInvoke` builds the event and context (as the Lambda runtime does
 * before calling the handler, so outside the timed region) and returns the invocation itself.
 */
interface Subject {
  name: string;
  bare: string;
  prepareInvoke(): () => Promise<unknown>;
  bareCall(): Promise<unknown>;
}

/** Sets up the handlers and their bare calls against the bench tables (runs in the child). */
async function subjects(
  endpoint: string,
): Promise<{ list: Subject[]; meterTargets: Parameters<typeof attachMeter>[0][] }> {
  const { functionEnv, benchTableNames } = await import('./function-env.ts');
  Object.assign(process.env, functionEnv(endpoint));
  const { UpdateCommand, GetCommand, NumberValue } = await import('@aws-sdk/lib-dynamodb');
  const { collectStreamed, installStreamingRuntime } = await import('#infra/local/response-streaming.ts');
  const { sortedIndexRead } = await import('./sorted-read.ts');
  const { listIndex, listShardOf } = await import('#lib/inventory/list-index.ts');
  installStreamingRuntime();
  const { createDocumentClient, documentClient } = await import('#lib/clients/dynamodb.ts');
  const { inventoryStore } = await import('#lib/inventory/store.ts');
  const { keyStore } = await import('#lib/auth/key-store.ts');
  const { apiKeyDigest, generateApiKey } = await import('#lib/auth/api-key.ts');
  const { importInventoryFile } = await import('#infra/tools/import-file.ts');
  const { demoInventoryFile } = await import('#infra/local/service.ts');
  const { lambdaContext } = await import('#infra/local/lambda-context.ts');
  const { listEvent, tokenEvent, updateEvent } = await import('./events.ts');
  const list = (await import('#functions/list-inventory/handler.ts')).handler;
  const update = (await import('#functions/update-inventory/handler.ts')).handler;
  const authorizer = (await import('#functions/authorizer/handler.ts')).handler;

  const bare = createDocumentClient();
  const store = inventoryStore(bare, benchTableNames.inventory);
  await importInventoryFile(demoInventoryFile, store);
  const petId = (await store.listSorted().next()).value?.[0]?.petId ?? '1';
  const apiKey = generateApiKey();
  const keyDigest = apiKeyDigest(apiKey);
  await keyStore(bare, benchTableNames.apiKeys).put({
    keyDigest,
    name: 'bench',
    createdAt: new Date().toISOString(),
  });

  let quantity = 0;
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`unexpected result of ${what}`);
  };
  const subjectsList: Subject[] = [
    {
      name: 'listInventory',
      bare: 'sorted index read',
      prepareInvoke: () => {
        const event = listEvent();
        const context = lambdaContext('listInventory');
        // In streaming mode the runtime calls (event, stream, context); middy types the plain signature.
        const streamed = list as unknown as (e: typeof event, s: unknown, c: typeof context) => Promise<void>;
        const invoke = () => collectStreamed((stream) => streamed(event, stream, context));
        return async () => check((await invoke()).statusCode === 200, 'list');
      },
      bareCall: () => sortedIndexRead(bare, benchTableNames.inventory),
    },
    {
      name: 'updateInventory',
      bare: 'UpdateCommand',
      prepareInvoke: () => {
        const event = updateEvent(petId, ++quantity % 1000);
        const context = lambdaContext('updateInventory');
        return async () => check((await update(event, context)).statusCode === 200, 'update');
      },
      bareCall: () =>
        bare.send(
          new UpdateCommand({
            TableName: benchTableNames.inventory,
            Key: { petId: NumberValue.from(petId) },
            UpdateExpression: 'SET quantity = :quantity, #shard = :shard',
            ConditionExpression: 'attribute_exists(petId)',
            ExpressionAttributeNames: { '#shard': listIndex.shardAttribute },
            ExpressionAttributeValues: { ':quantity': ++quantity % 1000, ':shard': listShardOf(petId) },
            ReturnValues: 'ALL_NEW',
          }),
        ),
    },
    {
      name: 'authorizer',
      bare: 'GetCommand',
      prepareInvoke: () => {
        const event = tokenEvent(apiKey);
        const context = lambdaContext('authorizer');
        return async () => {
          const result = await authorizer(event, context);
          check(result.policyDocument.Statement[0]?.Effect === 'Allow', 'authorizer');
        };
      },
      bareCall: () => bare.send(new GetCommand({ TableName: benchTableNames.apiKeys, Key: { keyDigest } })),
    },
  ];
  return { list: subjectsList, meterTargets: [documentClient, bare] };
}

/** Runs the measurements (in the child). */
async function run(options: WarmOptions): Promise<WarmResult[]> {
  const { list, meterTargets } = await subjects(options.endpoint);
  const [handlerClient, bareClient] = meterTargets as [
    Parameters<typeof attachMeter>[0],
    Parameters<typeof attachMeter>[0],
  ];

  // Keep-alive first, while no connection is open yet: sockets opened per 100 invocations.
  let sockets = 0;
  const onSocket = () => {
    sockets++;
  };
  subscribe('net.client.socket', onSocket);
  const socketCounts = new Map<string, number>();
  for (const subject of list) {
    sockets = 0;
    for (let i = 0; i < 100; i++) await subject.prepareInvoke()();
    socketCounts.set(subject.name, sockets);
  }
  unsubscribe('net.client.socket', onSocket);

  // DynamoDB usage of one invocation and of one bare call.
  const handlerMeter = attachMeter(handlerClient);
  const bareMeter = attachMeter(bareClient);
  const usage = new Map<string, { handlerDb: Metered; bareDb: Metered }>();
  for (const subject of list) {
    handlerMeter.take();
    await subject.prepareInvoke()();
    const handlerDb = handlerMeter.take();
    bareMeter.take();
    await subject.bareCall();
    usage.set(subject.name, { handlerDb, bareDb: bareMeter.take() });
  }
  handlerMeter.detach();
  bareMeter.detach();

  const results: WarmResult[] = [];
  for (const subject of list) {
    for (let i = 0; i < options.warmup; i++) {
      await subject.prepareInvoke()();
      await subject.bareCall();
    }
    const handlerMs: number[] = [];
    const bareMs: number[] = [];
    for (let i = 0; i < options.iterations; i++) {
      const invoke = subject.prepareInvoke();
      const order =
        i % 2 === 0
          ? ([invoke, handlerMs, subject.bareCall, bareMs] as const)
          : ([subject.bareCall, bareMs, invoke, handlerMs] as const);
      let start = performance.now();
      await order[0]();
      order[1].push(performance.now() - start);
      start = performance.now();
      await order[2]();
      order[3].push(performance.now() - start);
    }
    const { handlerDb, bareDb } = usage.get(subject.name) as { handlerDb: Metered; bareDb: Metered };
    results.push({
      name: subject.name,
      bare: subject.bare,
      handlerMs: summarize(handlerMs),
      bareMs: summarize(bareMs),
      handlerDb,
      bareDb,
      socketsPer100: socketCounts.get(subject.name) ?? 0,
      handlerAloneUs: summarize([]),
    });
  }

  // The handlers alone: record one real response per command, then answer every send with it.
  type Sender = { send(command: object): Promise<unknown> };
  const client = handlerClient as unknown as Sender;
  const realSend = client.send.bind(client);
  const recorded = new Map<string, unknown>();
  client.send = async (command) => {
    const output = await realSend(command);
    recorded.set(command.constructor.name, output);
    return output;
  };
  for (const subject of list) await subject.prepareInvoke()();
  client.send = async (command) => recorded.get(command.constructor.name);
  for (const [i, subject] of list.entries()) {
    for (let j = 0; j < options.warmup; j++) await subject.prepareInvoke()();
    const aloneUs: number[] = [];
    for (let j = 0; j < options.iterations; j++) {
      const invoke = subject.prepareInvoke();
      const start = performance.now();
      await invoke();
      aloneUs.push((performance.now() - start) * 1000);
    }
    (results[i] as WarmResult).handlerAloneUs = summarize(aloneUs);
  }
  client.send = realSend;
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const results = await run(JSON.parse(process.argv[2] ?? '{}') as WarmOptions);
  process.send(results, () => process.exit(0));
}
