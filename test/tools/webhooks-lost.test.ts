/**
 * `npm run webhooks -- lost` on a local store (docs/operating.md "Lost change records"): the stream mappings'
 * failure queue reached through `<dataDir>/aws-endpoint` (the real local queue of local-api), the history table
 * of the store. The message is a stream mapping's on-failure record as Lambda sends it (local-aws/behaviour.md
 * D13); the history holds a pet whose records straddle its range with a break, and one without a break.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { startTestStore, temporaryDir } from 'local-aws/testing';
import { expect, test } from 'vitest';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { startLocalQueue } from '#test/support/local-queue.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

const dataDir = await temporaryDir('webhooks-lost-');
const db = await startTestStore({ dataDir, tables: serviceTables });
const queue = await startLocalQueue({
  name: 'ChangeRecordsFailureQueue',
  credentials: db.credentials,
  dataDir,
});
cleanUpAfterAll(
  () => queue.close(),
  () => db.close(),
);

const lost = (...args: string[]) =>
  runNode(scripts.webhooks, ['lost', ...args], { env: childEnv({ DATA_DIR: dataDir }) });

/** A history item of pet `petId` made from stream record `streamSequence`, quantity `from` -> `to`. */
const historyItem = (
  petId: string,
  sequence: number,
  streamSequence: string,
  from: number | null,
  to: number,
) =>
  db.client.send(
    new PutItemCommand({
      TableName: testTableNames.inventoryHistory,
      Item: {
        petId: { N: petId },
        sequence: { N: String(sequence) },
        streamSequence: { S: streamSequence },
        occurredAt: { S: '2026-11-27T10:00:00.000Z' },
        reason: { S: sequence === 1 ? 'created' : 'arrival' },
        quantity: {
          M: { from: from === null ? { NULL: true } : { N: String(from) }, to: { N: String(to) } },
        },
        status: {
          M: { from: sequence === 1 ? { NULL: true } : { S: 'available' }, to: { S: 'available' } },
        },
      },
    }),
  );

test('none: says so', async () => {
  const result = await lost();

  expect(result.code).toBe(0);
  expect(result.stdout).toBe('No lost change records.\n');
});

test('lists each lost batch with its range and times, and the pets whose history shows the break over it; the message stays', async () => {
  const sequence = (n: number) => String(n).padStart(21, '0');
  // Pet 70 lost its change to 7 (stream record 6): its next record comes from 7, not 0. Pet 71 changed before
  // and after the range without a break: it lost nothing there.
  await historyItem('70', 1, sequence(5), null, 0);
  await historyItem('70', 2, sequence(9), 7, 3);
  await historyItem('71', 1, sequence(4), null, 2);
  await historyItem('71', 2, sequence(10), 2, 5);
  const record = {
    requestContext: {
      requestId: 'c9b8fa9f-5a7f-4e8a-9b5c-0c3f3c1f9e21',
      functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:RecordChangesFunction',
      condition: 'RecordAgeExceeded',
      approximateInvokeCount: 412,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: '2026-11-28T10:00:05.000Z',
    DDBStreamBatchInfo: {
      shardId: 'shardId-00000000000000000001-00000001',
      startSequenceNumber: sequence(6),
      endSequenceNumber: sequence(8),
      approximateArrivalOfFirstRecord: '2026-11-27T10:00:01Z',
      approximateArrivalOfLastRecord: '2026-11-27T10:00:02Z',
      batchSize: 3,
      streamArn: `arn:aws:dynamodb:us-east-1:000000000000:table/${testTableNames.inventory}/stream/2026-11-01T00:00:00.000`,
    },
  };
  await queue.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify(record) }));

  const json = await lost('--json');
  const text = await lost();

  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toStrictEqual([
    {
      table: 'inventory',
      condition: 'RecordAgeExceeded',
      shardId: 'shardId-00000000000000000001-00000001',
      startSequenceNumber: sequence(6),
      endSequenceNumber: sequence(8),
      firstRecordAt: '2026-11-27T10:00:01Z',
      lastRecordAt: '2026-11-27T10:00:02Z',
      discardedAt: '2026-11-28T10:00:05.000Z',
      batchSize: 3,
      pets: [{ petId: '70', afterSequence: 1 }],
    },
  ]);
  expect(text.code).toBe(0);
  expect(text.stdout).toBe(
    `inventory stream, records ${sequence(6)}..${sequence(8)} (3), written 2026-11-27T10:00:01Z..2026-11-27T10:00:02Z, given up 2026-11-28T10:00:05.000Z (RecordAgeExceeded); pets with the break: 70 (after sequence 1)\n`,
  );
  // Listed, not taken: the alarm's queue still holds it.
  expect(await queue.counts()).toStrictEqual({ visible: 1, notVisible: 0, delayed: 0 });
});
