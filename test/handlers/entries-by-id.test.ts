/**
 * Inventory entries by petId (lib/inventory/entries-by-id.ts) in this process against a real DynamoDB API
 * (in-memory dynalite): docs/contract.md "Inventory semantics" (listInventory's `petIds`: the entries that
 * exist, sorted by petId; 503 when DynamoDB keeps leaving keys unprocessed). A throttled read is injected by a
 * middleware that answers BatchGetItem rounds with every key unprocessed, as DynamoDB answers a throttled batch.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient, startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { HttpError } from '#lib/http/errors.ts';
import { getEntries } from '#lib/inventory/entries-by-id.ts';
import { inventoryRecord, putItems } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let raw: DynamoDBClient;

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
  await putItems(db.client, testTableNames.inventory, [
    inventoryRecord('9223372036854775807', 3, 'available'),
    inventoryRecord('5', 10, 'pending'),
    { ...inventoryRecord('-7', 1, 'sold'), reorderPoint: { N: '2' } },
  ]);
});
afterAll(() => db?.close());
beforeEach(() => {
  raw = dynamoDbClient(db.endpoint, db.credentials);
});
afterEach(() => raw.destroy());

/** Answers the first `rounds` BatchGetItem requests with no response and every key unprocessed. */
function throttle(rounds: number): void {
  let throttled = 0;
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'BatchGetItemCommand' && throttled < rounds) {
        throttled++;
        // The request as sent (attribute values), the answer as the document client reads it (NumberValue).
        const input = args.input as { RequestItems: Record<string, { Keys: { petId: { N: string } }[] }> };
        const output = result.output as { Responses?: unknown; UnprocessedKeys?: unknown };
        output.Responses = undefined;
        output.UnprocessedKeys = Object.fromEntries(
          Object.entries(input.RequestItems).map(([table, { Keys }]) => [
            table,
            { Keys: Keys.map(({ petId }) => ({ petId: NumberValue.from(petId.N) })) },
          ]),
        );
      }
      return result;
    },
    // After the serializer (the request's attribute values) and the document client's unmarshalling.
    { step: 'build', name: 'throttledBatchGet' },
  );
}

const entries = (petIds: string[]) => getEntries(toDocumentClient(raw), testTableNames.inventory, petIds);

const sorted = [
  { petId: '-7', quantity: 1, status: 'sold', reorderPoint: 2 },
  { petId: '5', quantity: 10, status: 'pending' },
  { petId: '9223372036854775807', quantity: 3, status: 'available' },
];

describe('getEntries', () => {
  test('the entries that exist, sorted by petId', async () => {
    expect(await entries(['9223372036854775807', '6', '5', '-7'])).toStrictEqual(sorted);
  });

  test('keys left unprocessed are asked again', async () => {
    throttle(2);
    expect(await entries(['5', '9223372036854775807', '-7'])).toStrictEqual(sorted);
  });

  test('503 service_unavailable when keys are still unprocessed after the last round', async () => {
    throttle(Number.POSITIVE_INFINITY);
    const error = await entries(['5']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).body).toStrictEqual({
      code: 'service_unavailable',
      message: 'the inventory is busy; retry',
      status: 503,
    });
  });
});
