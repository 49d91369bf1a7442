/**
 * functions/get-inventory-item invoked in this process with REST proxy events (payload 1.0) against a real
 * DynamoDB API (in-memory dynalite), on entries written by the inventory store's import write (lib/inventory/
 * store.ts `putMany`): docs/contract.md "Inventory semantics", "Identifiers" and "Operator tooling".
 */

import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from 'local-aws';
import { beforeAll, describe, expect, test } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { errorResult, handlerSuite } from '#test/support/handler-suite.ts';
import { badPetIdMessage } from '#test/support/http-assertions.ts';
import { type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import { changeTimeFormat, inventoryRecord, scanTable } from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const suite = handlerSuite<ProxyHandler>(() => import('#functions/get-inventory-item/handler.ts'));

/** The entries the import writes before the tests: int64's ends, a reorder point, pet details. */
const imported = [
  { petId: '-9223372036854775808', quantity: 0, status: 'sold' as const },
  { petId: '5', quantity: 2147483647, status: 'pending' as const, reorderPoint: 3 },
  {
    petId: '9223372036854775807',
    quantity: 7,
    status: 'available' as const,
    details: { name: 'Rex', photoUrls: ['a'] },
  },
];

beforeAll(async () => {
  await inventoryStore(toDocumentClient(suite.db.client), testTableNames.inventory).putMany(imported);
});

/** GET /inventory/{petId}. */
function getInventoryItem(petId: string): Promise<APIGatewayProxyResult> {
  const event = restProxyEvent({
    method: 'GET',
    resource: '/inventory/{petId}',
    path: `/inventory/${petId}`,
    pathParameters: { petId },
  });
  return suite.handler(event, lambdaContext('getInventoryItem'));
}

describe('the import write (inventoryStore.putMany)', () => {
  test('stores each entry with its list shard, its reorder point and details when given, and the change import', async () => {
    const importChange = { reason: 'import', changedAt: expect.stringMatching(changeTimeFormat) };
    expect(await scanTable(suite.db.client, testTableNames.inventory)).toStrictEqual([
      inventoryRecord('-9223372036854775808', 0, 'sold', importChange),
      { ...inventoryRecord('5', 2147483647, 'pending', importChange), reorderPoint: { N: '3' } },
      {
        ...inventoryRecord('9223372036854775807', 7, 'available', importChange),
        name: { S: 'Rex' },
        photoUrls: { L: [{ S: 'a' }] },
        tags: { L: [] },
      },
    ]);
  });
});

describe('getInventoryItem', () => {
  test.each([
    ['-9223372036854775808', '{"petId":-9223372036854775808,"quantity":0,"status":"sold"}', '"0-sold"'],
    ['5', '{"petId":5,"quantity":2147483647,"status":"pending","reorderPoint":3}', '"2147483647-pending"'],
    [
      '9223372036854775807',
      '{"petId":9223372036854775807,"quantity":7,"status":"available"}',
      '"7-available"',
    ],
  ])('answers the entry %s exactly, with its ETag', async (petId, body, etag) => {
    expect(await getInventoryItem(petId)).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', ETag: etag },
      body,
    });
  });

  test('answers 404 for a petId without an entry', async () => {
    expect(await getInventoryItem('-0')).toStrictEqual(
      errorResult(404, 'not_found', 'no inventory entry for petId 0'),
    );
  });

  test('answers 400 for a petId that is not a canonical int64', async () => {
    expect(await getInventoryItem('05')).toStrictEqual(errorResult(400, 'invalid_request', badPetIdMessage));
  });
});
