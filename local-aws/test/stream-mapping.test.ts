/**
 * The local event source mapping on a table's stream (README.md "The change stream"; behaviour.md
 * D6-D14), read from a fixture template and run on the embedded store's fixture table `items` (support/fixture-tables.ts)
 * with a real worker-thread function (testing/functions/stream-function.ts): batches in stream order, the batching
 * window, retries and bisection of a throwing function, ReportBatchItemFailures, the on-failure record, record
 * age, a checkpoint that survives a restart, a stop that lets the running invocation finish, and a SIGKILL at
 * each crash point that never separates a commit from its record.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, test, vi } from 'vitest';
import { dataFolderCredentials } from '../common/store-credentials.ts';
import { retentionVariable, type StreamRecord } from '../dynamodb/change-stream.ts';
import { LambdaFunction } from '../lambda/lambda-runtime.ts';
import {
  type RunningStreamMapping,
  type StreamFailureRecord,
  startStreamMapping,
  streamMappingModels,
} from '../mappings/stream-mapping.ts';
import { functionModel, type Template } from '../template/api-model.ts';
import { crashHookUrl, streamFunctionModule } from '../testing/index.ts';
import { temporaryDir } from '../testing/temporary-dirs.ts';
import { dynamoDbClient, startTestStore, type TestStore } from '../testing/test-store.ts';
import { createTestTables, testTables } from './support/fixture-tables.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const storeProcess = fileURLToPath(new URL('./support/store-process.ts', import.meta.url));
const items = testTables.items;
const closers: (() => Promise<unknown>)[] = [];
/** The store processes started here and still running, killed after the suite (or when this process exits). */
const children = new Set<ChildProcess>();
const killChildren = () => {
  for (const child of children) child.kill('SIGKILL');
};
process.once('exit', killChildren);
cleanUpAfterAll(async () => {
  killChildren();
  for (const close of closers.reverse()) await close();
});

/** A template with the table `items`, the consumer function and a mapping with `properties` over these. */
function fixtureTemplate(properties: Record<string, unknown>): Template {
  return {
    Resources: {
      Items: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      Consumer: {
        Type: 'AWS::Lambda::Function',
        Properties: { Handler: 'index.handler', Timeout: 10, MemorySize: 256 },
      },
      Failures: { Type: 'AWS::SQS::Queue', Properties: {} },
      ConsumerMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Items', 'StreamArn'] },
          FunctionName: { Ref: 'Consumer' },
          StartingPosition: 'TRIM_HORIZON',
          DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['Failures', 'Arn'] } } },
          ...properties,
        },
      },
    },
  };
}

/** A store (in memory, or on `dataDir`) with the fixture tables, closed after the suite. */
async function store(dataDir?: string) {
  const db = await startTestStore({ dataDir, tables: createTestTables });
  closers.push(() => db.close());
  return { db, client: db.client, close: () => db.close() };
}

/** One invocation as the fixture function logged it. */
interface Invocation {
  sequences: string[];
  actions: string[];
}

/** The mapping of `fixtureTemplate(properties)` running on `db`, its invocations and its failure records. */
async function mapping(
  db: Pick<TestStore, 'changeStream'>,
  properties: Record<string, unknown>,
  options: { logFile?: string; acceptAll?: boolean } = {},
) {
  const logFile = options.logFile ?? join(await temporaryDir('stream-mapping-'), 'invocations.log');
  await writeFile(logFile, '', { flag: 'a' });
  const template = fixtureTemplate(properties);
  const [model] = streamMappingModels(template, () => items);
  if (!model) throw new Error('no stream mapping in the fixture template');
  const lambda = new LambdaFunction(
    functionModel('Consumer', template.Resources, {
      assemblyDir: packageRoot,
      tableName: () => items,
      overrides: { STREAM_LOG: logFile, ...(options.acceptAll ? { STREAM_ACCEPT_ALL: 'true' } : {}) },
      sourceOf: () => streamFunctionModule,
    }),
  );
  const failures: { destination: string | undefined; record: StreamFailureRecord }[] = [];
  const running: RunningStreamMapping = startStreamMapping(model, {
    stream: db.changeStream,
    invoke: (event) => lambda.invoke(event),
    onFailure: (destination, record) => {
      failures.push({ destination, record });
    },
    pollIntervalMs: 50,
    retryBaseMs: 50,
  });
  const stop = async () => {
    await running.stop();
    await lambda.close();
  };
  closers.push(stop);
  const invocations = async (): Promise<Invocation[]> =>
    (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Invocation);
  return { model, failures, invocations, stop, logFile };
}

/** Writes item `itemId` with `action` (read by the fixture function); returns its stream record's sequence number. */
async function put(
  db: Pick<TestStore, 'changeStream'>,
  client: ReturnType<typeof dynamoDbClient>,
  itemId: number,
  action = 'ok',
) {
  await client.send(
    new PutItemCommand({
      TableName: items,
      Item: { itemId: { N: String(itemId) }, quantity: { N: '1' }, action: { S: action } },
    }),
  );
  return (await db.changeStream.latest(items)) as string;
}

/**
 * Starts support/store-process.ts (the embedded DynamoDB alone, with the fixture tables) with `variables` added
 * to this process's environment, its errors shown in the test's: the child, what it printed so far, and the
 * signal that ended it (null for an exit).
 */
function spawnStore(variables: Record<string, string>) {
  const child = spawn(process.execPath, [storeProcess], {
    cwd: packageRoot,
    env: { ...process.env, ...variables },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const output = { stdout: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  const exited = once(child, 'close').then(([, signal]) => {
    children.delete(child);
    return { signal: signal as NodeJS.Signals | null };
  });
  return { child, output, exited };
}

/** Waits until `check` holds (polled every 50 ms), for at most `ms`. */
function until(check: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  return vi.waitFor(async () => expect(await check(), 'the awaited state').toBe(true), {
    timeout: ms,
    interval: 50,
  });
}

/**
 * Waits until the mapping `logicalId` has checkpointed `sequence`: every batch up to it has been invoked and
 * ended, and with no record after it, no invocation follows.
 */
const checkpointed = (db: Awaited<ReturnType<typeof store>>['db'], logicalId: string, sequence: string) =>
  until(async () => (await db.changeStream.checkpoint(logicalId)) === sequence);

test('the template mapping is read with its settings and Lambda defaults', () => {
  const [model] = streamMappingModels(
    fixtureTemplate({ BatchSize: 7, MaximumRetryAttempts: 3 }),
    () => items,
  );
  expect(model).toStrictEqual({
    logicalId: 'ConsumerMapping',
    functionId: 'Consumer',
    tableId: 'Items',
    tableName: items,
    batchSize: 7,
    batchingWindowSeconds: 0,
    startingPosition: 'TRIM_HORIZON',
    bisectBatchOnFunctionError: false,
    maximumRetryAttempts: 3,
    maximumRecordAgeSeconds: -1,
    reportBatchItemFailures: false,
    onFailureDestination: 'Failures',
    enabled: true,
  });
  const sqs = fixtureTemplate({ EventSourceArn: { 'Fn::GetAtt': ['Failures', 'Arn'] } });
  expect(streamMappingModels(sqs, () => items)).toStrictEqual([]);
});

test('records reach the function in stream order, in batches of at most BatchSize, exactly as the stream holds them', async () => {
  const { db, client } = await store();
  const sequences: string[] = [];
  for (let itemId = 1; itemId <= 7; itemId += 1) sequences.push(await put(db, client, itemId));
  const run = await mapping(db, { BatchSize: 3 });
  await checkpointed(db, run.model.logicalId, sequences.at(-1) as string);
  expect((await run.invocations()).map((invocation) => invocation.sequences)).toStrictEqual([
    sequences.slice(0, 3),
    sequences.slice(3, 6),
    sequences.slice(6),
  ]);
  expect(run.failures).toStrictEqual([]);
});

test('StartingPosition LATEST skips the records written before the mapping first started', async () => {
  const { db, client } = await store();
  await put(db, client, 1);
  await put(db, client, 2);
  const run = await mapping(db, { StartingPosition: 'LATEST' });
  // The mapping's first checkpoint, at the newest record, is saved as it starts.
  await until(async () => (await db.changeStream.checkpoint(run.model.logicalId)) !== undefined);
  const third = await put(db, client, 3);
  await checkpointed(db, run.model.logicalId, third);
  expect((await run.invocations()).map((invocation) => invocation.sequences)).toStrictEqual([[third]]);
});

test('MaximumBatchingWindowInSeconds gathers the records written within the window into one batch', async () => {
  const { db, client } = await store();
  const run = await mapping(db, { BatchSize: 10, MaximumBatchingWindowInSeconds: 3 });
  const sequences = [await put(db, client, 1), await put(db, client, 2), await put(db, client, 3)];
  await checkpointed(db, run.model.logicalId, sequences[2] as string);
  expect((await run.invocations()).map((invocation) => invocation.sequences)).toStrictEqual([sequences]);
});

test('the batch of a throwing function is bisected (no retry used) down to the failing record, which is retried; then it goes to the on-failure destination and the mapping moves on', async () => {
  const { db, client } = await store();
  const [one, two, three, four] = [
    await put(db, client, 1),
    await put(db, client, 2),
    await put(db, client, 3, 'throw'),
    await put(db, client, 4),
  ] as string[];
  const run = await mapping(db, {
    BatchSize: 4,
    BisectBatchOnFunctionError: true,
    MaximumRetryAttempts: 2,
  });
  await until(() => run.failures.length === 1);
  const five = await put(db, client, 5);
  await until(async () => (await run.invocations()).some((i) => i.sequences.includes(five)));

  // Splits use no retry: the failing record alone is tried once, then retried twice.
  expect((await run.invocations()).map((invocation) => invocation.sequences)).toStrictEqual([
    [one, two, three, four],
    [one, two],
    [three, four],
    [three],
    [three],
    [three],
    [four],
    [five],
  ]);
  const [record] = await db.changeStream.read(items, two, 1);
  const arrival = new Date((record as StreamRecord).dynamodb.ApproximateCreationDateTime * 1000)
    .toISOString()
    .replace('.000Z', 'Z');
  expect(run.failures).toStrictEqual([
    {
      destination: 'Failures',
      record: {
        requestContext: {
          requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:Consumer',
          condition: 'RetryAttemptsExhausted',
          approximateInvokeCount: 3,
        },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
        version: '1.0',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        DDBStreamBatchInfo: {
          shardId: expect.stringMatching(/^shardId-/),
          startSequenceNumber: three,
          endSequenceNumber: three,
          approximateArrivalOfFirstRecord: arrival,
          approximateArrivalOfLastRecord: arrival,
          batchSize: 1,
          streamArn: record?.eventSourceARN,
        },
      },
    },
  ]);
});

test('without bisection the whole batch is retried, then discarded as one', async () => {
  const { db, client } = await store();
  const first = await put(db, client, 1, 'throw');
  const second = await put(db, client, 2);
  const run = await mapping(db, { BatchSize: 2, MaximumRetryAttempts: 1 });
  await until(() => run.failures.length === 1);
  expect((await run.invocations()).map((invocation) => invocation.sequences)).toStrictEqual([
    [first, second],
    [first, second],
  ]);
  expect(run.failures[0]?.record.requestContext.approximateInvokeCount).toBe(2);
  expect(run.failures[0]?.record.DDBStreamBatchInfo).toMatchObject({
    startSequenceNumber: first,
    endSequenceNumber: second,
    batchSize: 2,
  });
});

test('ReportBatchItemFailures: the batch is retried from the failed record on, the records before it are done', async () => {
  const { db, client } = await store();
  const one = await put(db, client, 1);
  const two = await put(db, client, 2, 'fail');
  const three = await put(db, client, 3);
  const run = await mapping(db, {
    BatchSize: 3,
    MaximumRetryAttempts: 1,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  await until(() => run.failures.length === 1);
  expect((await run.invocations()).map((invocation) => invocation.sequences)).toStrictEqual([
    [one, two, three],
    [two, three],
  ]);
  expect(run.failures[0]?.record.DDBStreamBatchInfo).toMatchObject({
    startSequenceNumber: two,
    endSequenceNumber: three,
    batchSize: 2,
  });
  // Records that were not reported failed are not delivered again.
  const four = await put(db, client, 4);
  await until(async () => (await run.invocations()).some((i) => i.sequences.includes(four)));
  expect((await run.invocations()).at(-1)?.sequences).toStrictEqual([four]);
});

test('a record older than MaximumRecordAgeInSeconds is discarded instead of retried', async () => {
  const { db, client } = await store();
  const poison = await put(db, client, 1, 'throw');
  const run = await mapping(db, { MaximumRecordAgeInSeconds: 1 });
  await until(() => run.failures.length === 1);
  expect(run.failures[0]?.record.requestContext.condition).toBe('RecordAgeExceeded');
  expect(run.failures[0]?.record.DDBStreamBatchInfo).toMatchObject({
    startSequenceNumber: poison,
    endSequenceNumber: poison,
  });
  expect((await run.invocations()).length).toBeGreaterThanOrEqual(1);
});

test('MaximumRetryAttempts and MaximumRecordAgeInSeconds -1: a failing record is retried until the stream no longer keeps it, then described to the on-failure destination, and the later records wait for it', async () => {
  // The store's stream keeps records 3 s (LOCAL_STREAM_RETENTION_SECONDS) instead of 24 hours.
  process.env[retentionVariable] = '3';
  const opened = await store().finally(() => {
    delete process.env[retentionVariable];
  });
  const { db, client } = opened;
  const poison = await put(db, client, 1, 'throw');
  const later = await put(db, client, 2);
  const run = await mapping(db, { BatchSize: 1, MaximumRetryAttempts: -1, MaximumRecordAgeInSeconds: -1 });
  await until(() => run.failures.length >= 1, 60_000);
  const delivered = async () => (await run.invocations()).map((invocation) => invocation.sequences);
  const beforeDiscard = await delivered();
  // Retried until it expired (never given up by a count), and nothing after it delivered while it failed.
  expect(beforeDiscard.length).toBeGreaterThanOrEqual(1);
  expect(beforeDiscard.every((sequences) => sequences.length === 1 && sequences[0] === poison)).toBe(true);
  expect(run.failures[0]?.record.requestContext.condition).toBe('RecordAgeExceeded');
  expect(run.failures[0]?.record.DDBStreamBatchInfo).toMatchObject({
    startSequenceNumber: poison,
    endSequenceNumber: poison,
    batchSize: 1,
  });
  // The later record, expired too while it waited, is given up as well, never silently dropped.
  await until(() => run.failures.length === 2, 60_000);
  expect(run.failures[1]?.record.DDBStreamBatchInfo).toMatchObject({
    startSequenceNumber: later,
    endSequenceNumber: later,
  });
}, 120_000);

test('the checkpoint survives a restart: delivered records are not delivered again, an abandoned batch is', async () => {
  const dataDir = join(await temporaryDir('stream-checkpoint-'), 'data');
  const logFile = join(await temporaryDir('stream-checkpoint-log-'), 'invocations.log');
  let { db, client, close } = await store(dataDir);
  const one = await put(db, client, 1);
  const first = await mapping(db, {}, { logFile });
  await until(async () => (await first.invocations()).length === 1);
  // A poison record, retried until the mapping stops: its batch is abandoned, the checkpoint stays before it.
  const poison = await put(db, client, 2, 'throw');
  await until(async () => (await first.invocations()).length >= 2);
  await first.stop();
  await close();

  ({ db, client, close } = await store(dataDir));
  const three = await put(db, client, 3);
  const before = (await first.invocations()).length;
  const second = await mapping(db, {}, { logFile, acceptAll: true });
  await until(async () => (await second.invocations()).some((i) => i.sequences.includes(three)));
  const after = (await second.invocations()).slice(before).map((invocation) => invocation.sequences);
  expect(after.flat()).toStrictEqual([poison, three]);
  expect(after.flat()).not.toContain(one);
});

test.each([
  ['before', 'before the write is decided', false],
  ['after', 'right after the commit, before the answer', true],
  ['mid', 'inside the write, as its batch is written', true],
])(
  'a SIGKILL %s (%s): after the restart the item and its stream record are both there or neither',
  async (point, _when, committed) => {
    const dir = await temporaryDir('stream-crash-');
    const dataDir = join(dir, 'data');
    const armedFile = join(dir, 'armed');
    const { child, output, exited } = spawnStore({
      STORE_DIR: dataDir,
      NODE_OPTIONS: `--import=${crashHookUrl}`,
      CRASH_AT: `${point} PutItem ${items}`,
      CRASH_ARMED: armedFile,
    });
    await until(() => /^ready /m.test(output.stdout) || child.exitCode !== null, 60_000);
    const endpoint = /^ready (\S+)/m.exec(output.stdout)?.[1] as string;
    const crashing = dynamoDbClient(endpoint, await dataFolderCredentials(dataDir));
    await writeFile(armedFile, '');
    const item = { itemId: { N: '77' }, quantity: { N: '5' }, status: { S: 'available' } };
    await expect(crashing.send(new PutItemCommand({ TableName: items, Item: item }))).rejects.toThrow();
    crashing.destroy();
    expect((await exited).signal).toBe('SIGKILL');

    const { db, client } = await store(dataDir);
    const stored = await client.send(new GetItemCommand({ TableName: items, Key: { itemId: item.itemId } }));
    expect(stored.Item).toStrictEqual(committed ? item : undefined);
    const records = (await db.changeStream.read(items, undefined, 100)) as StreamRecord[];
    expect(records.map((record) => [record.eventName, record.dynamodb.NewImage])).toStrictEqual(
      committed ? [['INSERT', item]] : [],
    );
  },
);

test('stopping during an invocation lets it finish and checkpoints its batch: the next start does not deliver it again', async () => {
  const dataDir = join(await temporaryDir('stream-stop-'), 'data');
  const logFile = join(await temporaryDir('stream-stop-log-'), 'invocations.log');
  const { db, client } = await store(dataDir);
  const slow = await put(db, client, 1, 'slow');
  const first = await mapping(db, {}, { logFile });
  await until(async () => (await first.invocations()).length === 1);
  await first.stop();
  expect(await db.changeStream.checkpoint(first.model.logicalId)).toBe(slow);

  const next = await put(db, client, 2);
  const second = await mapping(db, {}, { logFile });
  await checkpointed(db, second.model.logicalId, next);
  expect((await second.invocations()).map((invocation) => invocation.sequences)).toStrictEqual([
    [slow],
    [next],
  ]);
});
