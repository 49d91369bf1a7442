/**
 * No hidden loss, no reused event id (docs/contract.md "History and events"; docs/architecture.md "Change
 * records"): the embedded store's change stream, read by the local stream mapping with the stack's retry
 * settings (infra/change-events.ts `streamMapping`: retried until the records expire) and a retention of 10 s
 * (`LOCAL_STREAM_RETENTION_SECONDS`), invokes the real recordChanges handler, whose DynamoDB requests pass a
 * fault proxy that fails the history writes. A change whose writes fail until it expires is given up to a real
 * local failure queue (what the alarm watches); its event id is never published, the pet's next change takes
 * the next sequence and shows the break, and the webhook tool's `lost` lists the batch with the pet. Writes that
 * fail a few times then heal lose nothing and double nothing.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { inMemory, type LocalDynamoDb, type StreamFailureRecord, startDynamoDb } from 'local-aws';
import {
  dynamoDbClient,
  type InvokeOutcome,
  type RunningStreamMapping,
  retentionVariable,
  startStreamMapping,
  streamMappingModels,
} from 'local-aws/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { streamMapping } from '#infra/change-events.ts';
import { ensureTables } from '#lib/admin/tables.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { changeEventId } from '#lib/events/changes.ts';
import { updateEntry } from '#lib/inventory/entry-store.ts';
import { petStore } from '#lib/pets/store.ts';
import { failureRecords, lostBatches } from '#ops/lost-changes.ts';
import { type FaultProxy, startFaultProxy } from '#test/support/dynamodb-fault-proxy.ts';
import { type EventBusStandIn, startEventBusStandIn } from '#test/support/event-bus-stand-in.ts';
import { type LocalQueueFixture, startLocalQueue } from '#test/support/local-queue.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { setFunctionEnvironment, testTableNames } from '#test/support/test-dynamodb.ts';

let db: LocalDynamoDb;
let client: ReturnType<typeof dynamoDbClient>;
let proxy: FaultProxy;
let bus: EventBusStandIn;
let queue: LocalQueueFixture;
let mapping: RunningStreamMapping;

beforeAll(async () => {
  process.env[retentionVariable] = '10';
  try {
    db = await startDynamoDb({ dataDir: inMemory });
  } finally {
    delete process.env[retentionVariable];
  }
  client = dynamoDbClient(db.endpoint, db.credentials);
  await ensureTables(client, testTableNames);
  proxy = await startFaultProxy(db.endpoint);
  bus = await startEventBusStandIn();
  queue = await startLocalQueue({ name: 'ChangeRecordsFailureQueue' });
  // recordChanges reaches DynamoDB through the fault proxy, the bus through the stand-in.
  setFunctionEnvironment(proxy.endpoint, db.credentials);
  process.env.INVENTORY_HISTORY_TABLE_NAME = testTableNames.inventoryHistory;
  process.env.EVENTS_TABLE_NAME = testTableNames.events;
  process.env.EVENT_BUS_NAME = 'pet-store-test-bus';
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = bus.endpoint;
  const { handler } = await import('#functions/record-changes/handler.ts');
  const [model] = streamMappingModels(
    {
      Resources: {
        InventoryTable: { Type: 'AWS::DynamoDB::Table', Properties: {} },
        RecordChangesFunction: { Type: 'AWS::Lambda::Function', Properties: {} },
        ChangeRecordsFailureQueue: { Type: 'AWS::SQS::Queue', Properties: {} },
        RecordChangesInventoryStreamMapping: {
          Type: 'AWS::Lambda::EventSourceMapping',
          // The stack's settings (test/infra/events.test.ts pins them in the template).
          Properties: {
            EventSourceArn: { 'Fn::GetAtt': ['InventoryTable', 'StreamArn'] },
            FunctionName: { Ref: 'RecordChangesFunction' },
            StartingPosition: streamMapping.startingPosition,
            BatchSize: streamMapping.batchSize,
            MaximumBatchingWindowInSeconds: streamMapping.maxBatchingWindowSeconds,
            BisectBatchOnFunctionError: streamMapping.bisectBatchOnError,
            MaximumRetryAttempts: streamMapping.maximumRetryAttempts,
            MaximumRecordAgeInSeconds: streamMapping.maximumRecordAgeSeconds,
            ParallelizationFactor: streamMapping.parallelizationFactor,
            DestinationConfig: {
              OnFailure: { Destination: { 'Fn::GetAtt': ['ChangeRecordsFailureQueue', 'Arn'] } },
            },
          },
        },
      },
    },
    () => testTableNames.inventory,
  );
  if (!model) throw new Error('no stream mapping');
  mapping = startStreamMapping(model, {
    stream: db.changeStream as NonNullable<LocalDynamoDb['changeStream']>,
    // The handler in this process, its outcome as Lambda reports it to the mapping.
    invoke: async (event): Promise<InvokeOutcome> => {
      try {
        await handler(event as DynamoDBStreamEvent);
        return { type: 'result', payload: 'null' };
      } catch (error) {
        return { type: 'error', errorType: 'Error', errorMessage: (error as Error).message };
      }
    },
    onFailure: async (_destination: string | undefined, record: StreamFailureRecord) => {
      await queue.sqs.send(
        new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify(record) }),
      );
    },
    pollIntervalMs: 50,
    retryBaseMs: 100,
    log: () => {},
  });
}, 120_000);

afterAll(async () => {
  await mapping?.stop();
  await queue?.close();
  await bus?.close();
  await proxy?.close();
  client?.destroy();
  await db?.close();
});

const documents = () => toDocumentClient(client);
const addPet = (id: string) =>
  petStore(documents(), testTableNames.inventory).add({ id, photoUrls: [], tags: [], status: 'available' });
const update = (petId: string, quantity: number) =>
  updateEntry(documents(), testTableNames.inventory, petId, { quantity, reason: 'arrival' });

/** The pet's history items as stored, in sequence order. */
async function historyOf(petId: string) {
  const items = await scanTable(client, testTableNames.inventoryHistory);
  return items
    .filter((item) => item.petId?.N === petId)
    .sort((a, b) => Number(a.sequence?.N) - Number(b.sequence?.N));
}

/** How `expect.poll` waits here for what the stream mapping does: polled every 100 ms, for at most 60 s. */
const polled = { timeout: 60_000, interval: 100 };

/** The events the bus received: each id with the distinct details it was published with. */
function contentsById(): Map<string, Set<string>> {
  const contents = new Map<string, Set<string>>();
  for (const { DetailType, Detail } of bus.received) {
    const data = JSON.parse(Detail ?? 'null');
    const id = changeEventId({ type: DetailType, data } as Parameters<typeof changeEventId>[0]);
    contents.set(id, (contents.get(id) ?? new Set()).add(Detail ?? ''));
  }
  return contents;
}

test('a change whose history writes fail until its record expires is given up to the failure queue, never published; the next change takes the next sequence, shows the break, and the tool lists the loss', async () => {
  await addPet('60');
  await update('60', 1);
  await expect.poll(async () => (await historyOf('60')).length, polled).toBe(2);

  // Every history write fails from now on: the change to 7 is retried until the stream no longer keeps it.
  proxy.fault = (operation) => (operation === 'PutItem' ? 'error' : 'pass');
  await update('60', 7);
  const lostSequence = (await db.changeStream?.latest(testTableNames.inventory)) as string;
  await expect.poll(async () => (await queue.counts()).visible, polled).toBe(1);
  proxy.restore();
  await update('60', 3);
  await expect.poll(async () => (await historyOf('60')).length, polled).toBe(3);
  // The history record is written before its event is published: wait for the publish too.
  await expect.poll(() => contentsById().has('inventory.60.3'), polled).toBe(true);

  // The next record follows the last written one and shows the break: from 7 (the entry before it), not 1.
  const history = await historyOf('60');
  expect(history.map((item) => item.sequence?.N)).toStrictEqual(['1', '2', '3']);
  expect(history[1]?.quantity?.M).toStrictEqual({ from: { N: '0' }, to: { N: '1' } });
  expect(history[2]?.quantity?.M).toStrictEqual({ from: { N: '7' }, to: { N: '3' } });
  // No event id names two contents, and the lost change was never published.
  const contents = contentsById();
  expect([...contents.keys()]).toStrictEqual(['inventory.60.1', 'inventory.60.2', 'inventory.60.3']);
  expect([...contents.values()].every((details) => details.size === 1)).toBe(true);
  expect(bus.received.some(({ Detail }) => JSON.parse(Detail ?? '{}').quantity?.to === 7)).toBe(false);

  // The failure queue (ChangeRecordsFailureQueueAlarm's metric: messages visible) holds the loss, and `lost`
  // lists it with the pet.
  const lost = await lostBatches(
    await failureRecords(queue.sqs, queue.url),
    { client: documents(), tableName: testTableNames.inventoryHistory },
    testTableNames.inventory,
  );
  expect(lost).toHaveLength(1);
  expect(lost[0]).toMatchObject({
    table: 'inventory',
    condition: 'RecordAgeExceeded',
    startSequenceNumber: lostSequence,
    endSequenceNumber: lostSequence,
    batchSize: 1,
    pets: [{ petId: '60', afterSequence: 2 }],
  });
  // Listed and left visible: the alarm keeps counting it until an operator purges the queue.
  expect((await queue.counts()).visible).toBe(1);
}, 180_000);

test('history writes that fail a few times then heal lose nothing and double nothing', async () => {
  await addPet('61');
  let failures = 0;
  proxy.fault = (operation) => (operation === 'PutItem' && failures++ < 3 ? 'error' : 'pass');
  await update('61', 5);
  await update('61', 6);
  await expect.poll(async () => (await historyOf('61')).length, polled).toBe(3);
  proxy.restore();

  const history = await historyOf('61');
  expect(
    history.map((item) => [item.sequence?.N, item.quantity?.M?.from, item.quantity?.M?.to]),
  ).toStrictEqual([
    ['1', { NULL: true }, { N: '0' }],
    ['2', { N: '0' }, { N: '5' }],
    ['3', { N: '5' }, { N: '6' }],
  ]);
  await expect.poll(() => contentsById().has('inventory.61.3'), polled).toBe(true);
  expect([...contentsById().values()].every((details) => details.size === 1)).toBe(true);
  // Nothing given up: the failure queue holds only the first test's loss.
  expect((await queue.counts()).visible).toBe(1);
}, 180_000);
