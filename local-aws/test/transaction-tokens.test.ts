/**
 * The embedded store honours `ClientRequestToken` on TransactWriteItems as DynamoDB documents it
 * (behaviour.md "DynamoDB transactions", row X1): the same token and request again succeeds and
 * writes nothing again, also after a restart; the same token with another request is
 * `IdempotentParameterMismatchException` and writes nothing; a transaction that was cancelled recorded no
 * token, so its repeat is decided afresh; after 10 minutes a repeat is a new request.
 */
import {
  GetItemCommand,
  IdempotentParameterMismatchException,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LevelOperation, LevelStore } from '../common/level-store.ts';
import { TransactionTokens, tokenWindowMs } from '../dynamodb/dynalite-additions.ts';
import { startTestStore, type TestStore } from '../testing/test-store.ts';
import { createTestTables, testTables } from './support/fixture-tables.ts';

const { items: itemsTable, orders } = testTables;
let db: TestStore;

beforeAll(async () => {
  db = await startTestStore({ restartable: true, tables: createTestTables });
  await db.client.send(
    new PutItemCommand({
      TableName: itemsTable,
      Item: { itemId: { N: '77' }, quantity: { N: '10' }, status: { S: 'available' } },
    }),
  );
});
afterAll(() => db?.close());

/** A transaction taking `quantity` from item 77's stock (no condition: each application takes it again). */
function takeStock(token: string, quantity: number, orderId = '1') {
  return new TransactWriteItemsCommand({
    ClientRequestToken: token,
    TransactItems: [
      {
        Update: {
          TableName: itemsTable,
          Key: { itemId: { N: '77' } },
          UpdateExpression: 'SET quantity = quantity - :q',
          ConditionExpression: 'quantity >= :q',
          ExpressionAttributeValues: { ':q': { N: String(quantity) } },
        },
      },
      { Put: { TableName: orders, Item: { orderId: { N: orderId }, quantity: { N: String(quantity) } } } },
    ],
  });
}

async function stock(): Promise<string | undefined> {
  const { Item } = await db.client.send(
    new GetItemCommand({ TableName: itemsTable, Key: { itemId: { N: '77' } }, ConsistentRead: true }),
  );
  return Item?.quantity?.N;
}

test('the same token and request again succeeds and writes nothing again, also after a restart', async () => {
  expect((await db.client.send(takeStock('token-a', 2))).$metadata.httpStatusCode).toBe(200);
  expect(await stock()).toBe('8');

  expect((await db.client.send(takeStock('token-a', 2))).$metadata.httpStatusCode).toBe(200);
  expect(await stock()).toBe('8');

  await db.stop();
  await db.start();
  expect((await db.client.send(takeStock('token-a', 2))).$metadata.httpStatusCode).toBe(200);
  expect(await stock()).toBe('8');
});

test('the same token with another request is IdempotentParameterMismatchException and writes nothing', async () => {
  expect((await db.client.send(takeStock('token-b', 1))).$metadata.httpStatusCode).toBe(200);
  expect(await stock()).toBe('7');

  await expect(db.client.send(takeStock('token-b', 3))).rejects.toBeInstanceOf(
    IdempotentParameterMismatchException,
  );
  await expect(db.client.send(takeStock('token-b', 1, '2'))).rejects.toBeInstanceOf(
    IdempotentParameterMismatchException,
  );
  expect(await stock()).toBe('7');
  const { Item } = await db.client.send(
    new GetItemCommand({ TableName: orders, Key: { orderId: { N: '2' } } }),
  );
  expect(Item).toBeUndefined();
});

test('a cancelled transaction records no token: its repeat is decided again', async () => {
  await expect(db.client.send(takeStock('token-c', 50))).rejects.toBeInstanceOf(TransactionCanceledException);
  await db.client.send(
    new PutItemCommand({
      TableName: itemsTable,
      Item: { itemId: { N: '77' }, quantity: { N: '60' }, status: { S: 'available' } },
    }),
  );
  expect((await db.client.send(takeStock('token-c', 50))).$metadata.httpStatusCode).toBe(200);
  expect(await stock()).toBe('10');
});

test('a token names its transaction for 10 minutes after the commit, then a repeat is a new request', async () => {
  // The tokens on their own LevelDB (memory-level, as dynalite's in-memory store uses) with a clock the test moves.
  const { MemoryLevel } = await import('memory-level');
  const level = new MemoryLevel<string, unknown>({ valueEncoding: 'json' });
  let now = Date.parse('2026-11-27T12:00:00Z');
  const tokens = new TransactionTokens(level as unknown as LevelStore, () => now);
  const request = { ClientRequestToken: 'token-d', TransactItems: [{ Put: { TableName: 't' } }] };
  let runs = 0;
  const run = async (record: LevelOperation[]) => {
    runs++;
    await (level as unknown as LevelStore).batch(record);
    return { status: 200, body: {} };
  };

  await tokens.once(request, run);
  now += tokenWindowMs - 1;
  expect(await tokens.once(request, run)).toStrictEqual({ status: 200, body: {} });
  expect(runs).toBe(1);
  now += 1;
  await tokens.once(request, run);
  expect(runs).toBe(2);
  await level.close();
});
