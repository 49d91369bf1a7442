/**
 * functions/list-inventory invoked directly with REST proxy events (payload 1.0) against a real DynamoDB API
 * (in-memory dynalite): docs/service-spec.md §4.1, docs/contract.md "Semantics" and "petId".
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { lambdaTestContext, type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import {
  clearInventory,
  importHandlerOnTestDynamoDb,
  inventoryRecord,
  putItems,
  type RawItem,
  scanTable,
  type TestDynamoDb,
  testTableNames,
} from '#test/support/test-dynamodb.ts';

let db: TestDynamoDb;
let handler: ProxyHandler;

beforeAll(async () => {
  ({ db, handler } = await importHandlerOnTestDynamoDb(() => import('#functions/list-inventory/handler.ts')));
});
afterAll(() => db?.close());

beforeEach(async () => {
  await clearInventory(db.client, testTableNames.inventory);
});

function listInventory(query?: Record<string, string[]>): Promise<APIGatewayProxyResult> {
  const event = restProxyEvent({
    method: 'GET',
    resource: '/inventory',
    path: '/inventory',
    headers: { Accept: 'application/json', Authorization: 'Bearer psk_not-read-by-the-function' },
    ...(query ? { query } : {}),
  });
  return handler(event, lambdaTestContext('listInventory'));
}

describe('listInventory', () => {
  test('an empty table is 200 with the empty JSON array', async () => {
    expect(await listInventory()).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '[]',
    });
  });

  test('returns every entry sorted by petId in numeric order, negative and beyond 2^53 exact', async () => {
    const stored: RawItem[] = [
      inventoryRecord('10', 1, 'available'),
      inventoryRecord('9223372036854775807', 2, 'pending'),
      inventoryRecord('-2', 3, 'sold'),
      inventoryRecord('2', 4, 'available'),
      inventoryRecord('-9223372036854775808', 5, 'pending'),
      inventoryRecord('9007199254740993', 6, 'sold'),
      inventoryRecord('0', 7, 'available'),
      inventoryRecord('-10', 8, 'pending'),
      inventoryRecord('9007199254740992', 2147483647, 'sold'),
    ];
    await putItems(db.client, testTableNames.inventory, stored);

    const result = await listInventory();

    expect(result).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body:
        '[' +
        [
          '{"petId":-9223372036854775808,"quantity":5,"status":"pending"}',
          '{"petId":-10,"quantity":8,"status":"pending"}',
          '{"petId":-2,"quantity":3,"status":"sold"}',
          '{"petId":0,"quantity":7,"status":"available"}',
          '{"petId":2,"quantity":4,"status":"available"}',
          '{"petId":10,"quantity":1,"status":"available"}',
          '{"petId":9007199254740992,"quantity":2147483647,"status":"sold"}',
          '{"petId":9007199254740993,"quantity":6,"status":"sold"}',
          '{"petId":9223372036854775807,"quantity":2,"status":"pending"}',
        ].join(',') +
        ']',
    });
  });

  test('each element has exactly petId, quantity and status, whatever else the item stores', async () => {
    await putItems(db.client, testTableNames.inventory, [
      { ...inventoryRecord('7', 3, 'sold'), note: { S: 'internal' }, updatedAt: { N: '1700000000' } },
    ]);

    const result = await listInventory();

    expect(result.body).toBe('[{"petId":7,"quantity":3,"status":"sold"}]');
  });

  test('returns every entry across DynamoDB 1 MB scan pages', async () => {
    // 300 items of about 4 KB each: about 1.2 MB, more than one Scan page.
    const padding = { S: 'x'.repeat(4000) };
    const stored = Array.from({ length: 300 }, (_, i) => ({
      ...inventoryRecord(String(i + 1), i % 7, 'available'),
      padding,
    }));
    await putItems(db.client, testTableNames.inventory, stored);
    const firstPage = await db.client.send(new ScanCommand({ TableName: testTableNames.inventory }));
    expect(firstPage.LastEvaluatedKey).toBeDefined();

    const result = await listInventory();

    expect(result.statusCode).toBe(200);
    const expected = Array.from({ length: 300 }, (_, i) => ({
      petId: i + 1,
      quantity: i % 7,
      status: 'available',
    }));
    expect(JSON.parse(result.body)).toStrictEqual(expected);
  });

  test('does not change the table', async () => {
    const stored = [inventoryRecord('1', 1, 'available'), inventoryRecord('-1', 0, 'sold')];
    await putItems(db.client, testTableNames.inventory, stored);

    await listInventory();

    expect(await scanTable(db.client, testTableNames.inventory)).toStrictEqual([stored[1], stored[0]]);
  });
});

describe('listInventory query parameters (docs/contract.md "Requests as API Gateway delivers them")', () => {
  test('a query parameter the operation does not declare is 400 invalid_request naming it', async () => {
    await putItems(db.client, testTableNames.inventory, [inventoryRecord('1', 1, 'available')]);

    expect(await listInventory({ status: ['sold'], limit: ['1', '2'] })).toStrictEqual({
      statusCode: 400,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        code: 'invalid_request',
        message: 'query parameters not allowed: "status", "limit" (this operation takes none)',
        status: 400,
      }),
    });
  });

  test('an empty query parameter (?x) is named too', async () => {
    const result = await listInventory({ x: [''] });

    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).message).toBe(
      'query parameters not allowed: "x" (this operation takes none)',
    );
  });
});
