/**
 * The embedded store keeps a parsed `ConditionExpression` without values (dynalite-additions.ts
 * `keepParsedConditions`): the same condition text and names, asked again in transactions and PutItems, is
 * still decided on each item (refused where the item exists, taken where not), other names are parsed on their
 * own, and an expression that fails to parse is refused each time.
 */
import {
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStore, type TestStore } from '../testing/test-store.ts';
import { createTestTables, testTables } from './support/fixture-tables.ts';

const { orders, items } = testTables;
let db: TestStore;

beforeAll(async () => {
  db = await startTestStore({ tables: createTestTables });
});
afterAll(() => db?.close());

/** A put of order `orderId` only if absent, as the events feed puts its markers. */
const putIfAbsent = (orderId: string, names: Record<string, string> = { '#id': 'orderId' }) => ({
  Put: {
    TableName: orders,
    Item: { orderId: { N: orderId } },
    ConditionExpression: `attribute_not_exists(${Object.keys(names)[0]})`,
    ExpressionAttributeNames: names,
  },
});

test('a kept condition is decided on each item, in transactions and PutItems alike', async () => {
  await db.client.send(
    new TransactWriteItemsCommand({ TransactItems: [putIfAbsent('1'), putIfAbsent('2')] }),
  );
  const refused = await db.client
    .send(new TransactWriteItemsCommand({ TransactItems: [putIfAbsent('3'), putIfAbsent('2')] }))
    .catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(TransactionCanceledException);
  expect((refused as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toStrictEqual([
    'None',
    'ConditionalCheckFailed',
  ]);
  await db.client.send(new PutItemCommand(putIfAbsent('3').Put));
  await expect(db.client.send(new PutItemCommand(putIfAbsent('1').Put))).rejects.toThrow(
    'The conditional request failed',
  );
  // The same text with another name: the other attribute is the one tested (absent on a new item's key).
  await db.client.send(new PutItemCommand(putIfAbsent('1', { '#id': 'quantity' }).Put));
});

test('a condition that does not parse is refused each time, kept or not', async () => {
  const bad = {
    TableName: items,
    Item: { itemId: { N: '5' } },
    ConditionExpression: 'attribute_not_exists(#id',
    ExpressionAttributeNames: { '#id': 'itemId' },
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    await expect(db.client.send(new PutItemCommand(bad))).rejects.toThrow(/Invalid ConditionExpression/);
  }
});
