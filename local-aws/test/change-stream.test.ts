/**
 * The embedded store's change stream (README.md "The change stream"; behaviour.md D1-D5):
 * every committed write of each kind to a table with a stream yields one record shaped as Lambda delivers it,
 * with exact old and new images, in commit order; a write that changes nothing, a refused write and a write to
 * a table without a stream yield none; the table's description shows its stream (from CreateTable, or turned
 * on later with UpdateTable); records older than 24 hours are trimmed.
 */
import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { expect, test } from 'vitest';
import type { LevelStore } from '../common/level-store.ts';
import { ChangeStream, type StreamRecord } from '../dynamodb/change-stream.ts';
import { inMemory, startDynamoDb } from '../dynamodb/dynamodb.ts';
import { createActiveTable, dynamoDbClient } from '../testing/test-store.ts';
import { createTestTables, testTables } from './support/fixture-tables.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

const db = await startDynamoDb({ dataDir: inMemory });
const client = dynamoDbClient(db.endpoint, db.credentials);
await createTestTables(client);
cleanUpAfterAll(async () => {
  client.destroy();
  await db.close();
});
const stream = db.changeStream;
if (!stream) throw new Error('the embedded store has no change stream');
const itemsTable = testTables.items;
const orders = testTables.orders;

/** The table's records after `after` (a sequence number; undefined: all). */
const recordsOf = (table: string, after?: string) => stream.read(table, after, 1000);

/** The stream ARN DescribeTable shows for `table`. */
async function streamArn(table: string): Promise<string> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  return Table?.LatestStreamArn as string;
}

/** The record Lambda would deliver for the change of `keys` from `oldImage` to `newImage` on `table`. */
async function expected(
  table: string,
  eventName: StreamRecord['eventName'],
  keys: Record<string, unknown>,
  oldImage?: Record<string, unknown>,
  newImage?: Record<string, unknown>,
) {
  return {
    eventID: expect.stringMatching(/^[0-9a-f]{32}$/),
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: await streamArn(table),
    dynamodb: {
      ApproximateCreationDateTime: expect.any(Number),
      Keys: keys,
      ...(newImage ? { NewImage: newImage } : {}),
      ...(oldImage ? { OldImage: oldImage } : {}),
      SequenceNumber: expect.stringMatching(/^\d{21}$/),
      SizeBytes: expect.any(Number),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/** The newest sequence number of `table` so far ('' when none). */
const newest = async (table: string) => (await stream.latest(table)) ?? '';

test('DescribeTable shows the stream of a table created with one, and none for the others', async () => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: itemsTable }));
  expect(Table?.StreamSpecification).toStrictEqual({
    StreamEnabled: true,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  });
  expect(Table?.LatestStreamLabel).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
  expect(Table?.LatestStreamArn).toBe(
    `arn:aws:dynamodb:us-east-1:000000000000:table/${itemsTable}/stream/${Table?.LatestStreamLabel}`,
  );
  const keys = await client.send(new DescribeTableCommand({ TableName: testTables.plain }));
  expect(keys.Table?.StreamSpecification).toBeUndefined();
  expect(keys.Table?.LatestStreamArn).toBeUndefined();
});

test('PutItem, UpdateItem and DeleteItem each yield one record with the exact images', async () => {
  const start = await newest(itemsTable);
  const key = { itemId: { N: '101' } };
  const created = { ...key, quantity: { N: '5' }, status: { S: 'available' }, listShard: { N: '5' } };
  await client.send(new PutItemCommand({ TableName: itemsTable, Item: created }));
  await client.send(
    new UpdateItemCommand({
      TableName: itemsTable,
      Key: key,
      UpdateExpression: 'SET quantity = :q, reason = :r',
      ExpressionAttributeValues: { ':q': { N: '3' }, ':r': { S: 'adjustment' } },
    }),
  );
  const updated = { ...created, quantity: { N: '3' }, reason: { S: 'adjustment' } };
  await client.send(new DeleteItemCommand({ TableName: itemsTable, Key: key }));

  const records = await recordsOf(itemsTable, start);
  expect(records).toStrictEqual([
    await expected(itemsTable, 'INSERT', key, undefined, created),
    await expected(itemsTable, 'MODIFY', key, created, updated),
    await expected(itemsTable, 'REMOVE', key, updated, undefined),
  ]);
  const sequences = records.map((record) => BigInt(record.dynamodb.SequenceNumber));
  expect(sequences).toStrictEqual([...sequences].sort((a, b) => (a < b ? -1 : 1)));
  expect(new Set(sequences).size).toBe(3);
  const now = Date.now() / 1000;
  for (const record of records) {
    expect(record.dynamodb.ApproximateCreationDateTime).toBeGreaterThan(now - 60);
    expect(record.dynamodb.ApproximateCreationDateTime).toBeLessThanOrEqual(Math.ceil(now));
    expect(Number.isInteger(record.dynamodb.ApproximateCreationDateTime)).toBe(true);
  }
});

test('a write that changes nothing, a refused write and a delete of nothing yield no record', async () => {
  const item = { itemId: { N: '102' }, quantity: { N: '1' }, status: { S: 'available' } };
  await client.send(new PutItemCommand({ TableName: itemsTable, Item: item }));
  const start = await newest(itemsTable);

  await client.send(
    new PutItemCommand({
      TableName: itemsTable,
      Item: { status: item.status, quantity: item.quantity, itemId: item.itemId },
    }),
  );
  await client.send(
    new UpdateItemCommand({
      TableName: itemsTable,
      Key: { itemId: item.itemId },
      UpdateExpression: 'SET quantity = :q',
      ExpressionAttributeValues: { ':q': { N: '1' } },
    }),
  );
  await expect(
    client.send(
      new PutItemCommand({
        TableName: itemsTable,
        Item: { ...item, quantity: { N: '9' } },
        ConditionExpression: 'attribute_not_exists(itemId)',
      }),
    ),
  ).rejects.toThrow('The conditional request failed');
  await client.send(new DeleteItemCommand({ TableName: itemsTable, Key: { itemId: { N: '999' } } }));

  expect(await recordsOf(itemsTable, start)).toStrictEqual([]);
});

test('a table without a stream gets no record', async () => {
  const before = [await newest(itemsTable), await newest(orders)];
  await client.send(
    new PutItemCommand({
      TableName: testTables.plain,
      Item: { keyDigest: { S: 'x' }, name: { S: 'n' } },
    }),
  );
  expect(await recordsOf(testTables.plain)).toStrictEqual([]);
  expect([await newest(itemsTable), await newest(orders)]).toStrictEqual(before);
});

test('BatchWriteItem yields one record per item written', async () => {
  const start = await newest(itemsTable);
  const one = { itemId: { N: '201' }, quantity: { N: '1' }, status: { S: 'available' } };
  const two = { itemId: { N: '202' }, quantity: { N: '2' }, status: { S: 'pending' } };
  await client.send(
    new BatchWriteItemCommand({
      RequestItems: { [itemsTable]: [{ PutRequest: { Item: one } }, { PutRequest: { Item: two } }] },
    }),
  );
  const records = await recordsOf(itemsTable, start);
  const byItem = Object.fromEntries(
    records.map((record) => [(record.dynamodb.Keys.itemId as { N: string }).N, record]),
  );
  expect(records).toHaveLength(2);
  expect(byItem['201']).toStrictEqual(
    await expected(itemsTable, 'INSERT', { itemId: one.itemId }, undefined, one),
  );
  expect(byItem['202']).toStrictEqual(
    await expected(itemsTable, 'INSERT', { itemId: two.itemId }, undefined, two),
  );
});

test('TransactWriteItems yields one record per item changed, on each table, and none when cancelled', async () => {
  const widget = { itemId: { N: '301' }, quantity: { N: '4' }, status: { S: 'available' } };
  await client.send(new PutItemCommand({ TableName: itemsTable, Item: widget }));
  const starts = [await newest(itemsTable), await newest(orders)] as const;
  const order = {
    orderId: { N: '7001' },
    itemId: widget.itemId,
    quantity: { N: '1' },
    status: { S: 'placed' },
  };
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Update: {
            TableName: itemsTable,
            Key: { itemId: widget.itemId },
            UpdateExpression: 'SET quantity = quantity - :one',
            ExpressionAttributeValues: { ':one': { N: '1' } },
          },
        },
        { Put: { TableName: orders, Item: order } },
      ],
    }),
  );
  const itemRecords = await recordsOf(itemsTable, starts[0]);
  const orderRecords = await recordsOf(orders, starts[1]);
  expect(itemRecords).toStrictEqual([
    await expected(itemsTable, 'MODIFY', { itemId: widget.itemId }, widget, {
      ...widget,
      quantity: { N: '3' },
    }),
  ]);
  expect(orderRecords).toStrictEqual([
    await expected(orders, 'INSERT', { orderId: order.orderId }, undefined, order),
  ]);
  // One transaction, one commit: its records are consecutive.
  expect(
    BigInt(orderRecords[0]?.dynamodb.SequenceNumber as string) -
      BigInt(itemRecords[0]?.dynamodb.SequenceNumber as string),
  ).toBe(1n);

  await expect(
    client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            Update: {
              TableName: itemsTable,
              Key: { itemId: widget.itemId },
              UpdateExpression: 'SET quantity = :q',
              ExpressionAttributeValues: { ':q': { N: '0' } },
            },
          },
          {
            Put: {
              TableName: orders,
              Item: order,
              ConditionExpression: 'attribute_not_exists(orderId)',
            },
          },
        ],
      }),
    ),
  ).rejects.toThrow('Transaction cancelled');
  expect(await recordsOf(itemsTable, itemRecords[0]?.dynamodb.SequenceNumber)).toStrictEqual([]);
  expect(await recordsOf(orders, orderRecords[0]?.dynamodb.SequenceNumber)).toStrictEqual([]);
});

test('concurrent writes to one item are recorded in commit order, each image the one before the next', async () => {
  const key = { itemId: { N: '401' } };
  await client.send(
    new PutItemCommand({
      TableName: itemsTable,
      Item: { ...key, quantity: { N: '0' }, status: { S: 'available' } },
    }),
  );
  const start = await newest(itemsTable);
  await Promise.all(
    Array.from({ length: 20 }, () =>
      client.send(
        new UpdateItemCommand({
          TableName: itemsTable,
          Key: key,
          UpdateExpression: 'ADD quantity :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      ),
    ),
  );
  const records = await recordsOf(itemsTable, start);
  expect(
    records.map((record) => (record.dynamodb.NewImage?.quantity as { N: string } | undefined)?.N),
  ).toStrictEqual(Array.from({ length: 20 }, (_, at) => String(at + 1)));
  expect(
    records.map((record) => (record.dynamodb.OldImage?.quantity as { N: string } | undefined)?.N),
  ).toStrictEqual(Array.from({ length: 20 }, (_, at) => String(at)));
});

test('records older than 24 hours are trimmed once the reader has passed them; younger ones, and expired ones not read yet, are kept', async () => {
  // A stream on its own LevelDB (memory-level, as dynalite's in-memory store uses) with a clock the test moves.
  const { MemoryLevel } = await import('memory-level');
  const level = new MemoryLevel<string, unknown>({ valueEncoding: 'json' });
  let now = Date.parse('2026-01-01T00:00:00.000Z');
  const clocked = new ChangeStream(level as unknown as LevelStore, 'us-east-1', () => now);
  const table = {
    TableName: 'widgets',
    KeySchema: [{ AttributeName: 'itemId' }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    LatestStreamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/widgets/stream/2026-01-01T00:00:00.000',
  };
  const write = (itemId: string) =>
    clocked.commit([], [{ table, oldImage: null, newImage: { itemId: { N: itemId } } }]);
  const keysOf = (records: StreamRecord[]) => records.map((record) => record.dynamodb.Keys);
  await write('1');
  await write('2');
  now += 60 * 60 * 1000;
  await write('3');
  now += 24 * 60 * 60 * 1000 - 60 * 60 * 1000 + 1000;

  // Not read yet: kept for the reader's mapping, which gives expired records up to its on-failure destination.
  const unread = await clocked.read('widgets', undefined, 10);
  expect(keysOf(unread)).toStrictEqual([
    { itemId: { N: '1' } },
    { itemId: { N: '2' } },
    { itemId: { N: '3' } },
  ]);
  // Read past the first: it is trimmed, the second (expired, not passed) and the third (younger) are kept.
  expect(keysOf(await clocked.read('widgets', unread[0]?.dynamodb.SequenceNumber, 10))).toStrictEqual([
    { itemId: { N: '2' } },
    { itemId: { N: '3' } },
  ]);
  const kept = await clocked.read('widgets', undefined, 10);
  expect(keysOf(kept)).toStrictEqual([{ itemId: { N: '2' } }, { itemId: { N: '3' } }]);
  expect(kept[1]?.dynamodb.SequenceNumber).toBe('000000000000000000003');
  await level.close();
});

test('UpdateTable turns on the stream of a table created without one: records start with the next write', async () => {
  const TableName = 'widgets-before-streams';
  await createActiveTable(client, {
    TableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'itemId', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'itemId', KeyType: 'HASH' }],
  });
  const before = { itemId: { N: '1' }, quantity: { N: '1' } };
  await client.send(new PutItemCommand({ TableName, Item: before }));
  expect(await recordsOf(TableName)).toStrictEqual([]);

  const { TableDescription } = await client.send(
    new UpdateTableCommand({
      TableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  expect(TableDescription?.StreamSpecification).toStrictEqual({
    StreamEnabled: true,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  });
  expect(TableDescription?.LatestStreamArn).toBe(
    `arn:aws:dynamodb:us-east-1:000000000000:table/${TableName}/stream/${TableDescription?.LatestStreamLabel}`,
  );
  expect(await streamArn(TableName)).toBe(TableDescription?.LatestStreamArn);

  const after = { itemId: { N: '1' }, quantity: { N: '2' } };
  await client.send(new PutItemCommand({ TableName, Item: after }));
  expect(await recordsOf(TableName)).toStrictEqual([
    await expected(TableName, 'MODIFY', { itemId: before.itemId }, before, after),
  ]);
  await expect(
    client.send(
      new UpdateTableCommand({
        TableName,
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    ),
  ).rejects.toThrow(`Table already has an enabled stream: ${TableDescription?.LatestStreamArn}`);
});
