/**
 * updateInventory's write (lib/inventory/entry-store.ts `updateEntry`) in this process against a real DynamoDB
 * API (in-memory dynalite): docs/contract.md "Inventory semantics" (quantity, adjustments, status, reorder
 * points, If-Match) and "Store orders" (`Idempotency-Key`: the update's claim), docs/architecture.md "Writes
 * exactly once". The handler's HTTP answers are proven in test/handlers/update-inventory.test.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { keyClaim } from '#lib/idempotency/claim.ts';
import type { IfMatch } from '#lib/inventory/entity-tag.ts';
import { type EntryChange, getInventoryItem, updateEntry } from '#lib/inventory/entry-store.ts';
import {
  clearInventory,
  inventoryRecord,
  putItems,
  type RawItem,
  scanTable,
} from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let client: DynamoDBDocumentClient;

/** Entry 5: 10 pending without a reorder point; entry 6: 4 available with the reorder point 3. */
const entry5 = inventoryRecord('5', 10, 'pending');
const entry6 = { ...inventoryRecord('6', 4, 'available'), reorderPoint: { N: '3' } };

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
  client = toDocumentClient(db.client);
});
afterAll(() => db?.close());
beforeEach(async () => {
  await clearInventory(db.client, testTableNames.inventory);
  await putItems(db.client, testTableNames.inventory, [entry5, entry6]);
});

const update = (petId: string, change: EntryChange, ifMatch?: IfMatch) =>
  updateEntry(client, testTableNames.inventory, petId, change, ifMatch);

/** The stored entry of `petId` (raw attributes), without its change time. */
async function stored(petId: string): Promise<RawItem | undefined> {
  const item = (await scanTable(db.client, testTableNames.inventory)).find(
    (entry) => entry.petId?.N === petId,
  );
  if (item) delete item.changedAt;
  return item;
}

/** An If-Match listing the entity tags of `states` (`[quantity, status]`). */
const tags = (...states: [number, 'available' | 'pending' | 'sold'][]): IfMatch => ({
  any: false,
  states: states.map(([quantity, status]) => ({ quantity, status })),
});

describe('updateEntry values', () => {
  test('adjustBy adds to the stored quantity, up and down', async () => {
    expect(await update('5', { adjustBy: -4, reason: 'sale', keyId: 'key1' })).toStrictEqual({
      petId: '5',
      quantity: 6,
      status: 'pending',
    });
    expect(await update('5', { adjustBy: 7, reason: 'arrival', keyId: 'key1' })).toStrictEqual({
      petId: '5',
      quantity: 13,
      status: 'pending',
    });
    expect(await stored('5')).toStrictEqual(
      inventoryRecord('5', 13, 'pending', { reason: 'arrival', keyId: 'key1' }),
    );
  });

  test('a reorder point given is set, null clears it, none keeps it; a status given is set', async () => {
    expect(await update('5', { reorderPoint: 8, reason: 'adjustment' })).toStrictEqual({
      petId: '5',
      quantity: 10,
      status: 'pending',
      reorderPoint: 8,
    });
    expect(await update('6', { status: 'sold', reason: 'adjustment' })).toStrictEqual({
      petId: '6',
      quantity: 4,
      status: 'sold',
      reorderPoint: 3,
    });
    expect(
      await update('6', { quantity: 2, reorderPoint: null, reason: 'adjustment', keyId: 'key1' }),
    ).toStrictEqual({
      petId: '6',
      quantity: 2,
      status: 'sold',
    });
    expect(await stored('5')).toStrictEqual({
      ...inventoryRecord('5', 10, 'pending', { reason: 'adjustment' }),
      reorderPoint: { N: '8' },
    });
    expect(await stored('6')).toStrictEqual(
      inventoryRecord('6', 2, 'sold', { reason: 'adjustment', keyId: 'key1' }),
    );
  });

  test('an adjustment leaving 0..2147483647: insufficient_stock or quantity_out_of_range, nothing changes', async () => {
    expect(await update('5', { adjustBy: -11, reason: 'sale' })).toStrictEqual({
      code: 'insufficient_stock',
      message: 'petId 5 has 10 in stock; adjustBy -11 would leave -1',
    });
    expect(
      await update('5', { adjustBy: 2147483638, reason: 'arrival' }, tags([10, 'pending'])),
    ).toStrictEqual({
      code: 'quantity_out_of_range',
      message: 'petId 5 has 10 in stock; adjustBy 2147483638 would make 2147483648, more than 2147483647',
    });
    expect(await update('5', { adjustBy: 2147483637, reason: 'arrival' })).toMatchObject({
      quantity: 2147483647,
    });
    expect(await update('6', { adjustBy: -4, reason: 'sale' })).toMatchObject({ quantity: 0 });
  });
});

describe('updateEntry refusals', () => {
  test('no entry: not_found, none is made', async () => {
    expect(await update('7', { quantity: 1, reason: 'sale' })).toBe('not_found');
    expect(await update('7', { adjustBy: 1, reason: 'sale' }, tags())).toBe('not_found');
    expect(await stored('7')).toBeUndefined();
  });

  test('If-Match: any tag listed that names the entry meets it; none, or an empty list, is precondition_failed', async () => {
    expect(await update('5', { quantity: 9, reason: 'sale' }, tags([9, 'pending']))).toBe(
      'precondition_failed',
    );
    expect(await update('5', { quantity: 9, reason: 'sale' }, tags())).toBe('precondition_failed');
    expect(await update('5', { adjustBy: -1, reason: 'sale' }, tags([10, 'sold'], [9, 'pending']))).toBe(
      'precondition_failed',
    );
    expect(await stored('5')).toStrictEqual(entry5);

    expect(
      await update('5', { quantity: 9, reason: 'sale' }, tags([1, 'sold'], [10, 'pending'])),
    ).toMatchObject({
      quantity: 9,
    });
    expect(await update('5', { adjustBy: -1, reason: 'sale' }, tags([9, 'pending']))).toMatchObject({
      quantity: 8,
    });
    expect(await update('5', { quantity: 7, reason: 'sale' }, { any: true })).toMatchObject({ quantity: 7 });
  });

  test('If-Match not met with an adjustment that also fails: precondition_failed', async () => {
    expect(await update('5', { adjustBy: -11, reason: 'sale' }, tags([9, 'pending']))).toBe(
      'precondition_failed',
    );
  });
});

describe('updateEntry with an Idempotency-Key claim', () => {
  const prefix = 'updateInventoryClaim#';
  const keyed = (request: string) => ({
    tableName: testTableNames.idempotency,
    claim: keyClaim(prefix, 'scope key-1', request),
  });

  test('a repeat of the same update applies nothing again and answers the entry as it is; another update under the key is key_reused', async () => {
    const change: EntryChange = { adjustBy: -2, reason: 'sale', keyId: 'key1' };
    expect(
      await updateEntry(client, testTableNames.inventory, '5', change, undefined, keyed('a')),
    ).toStrictEqual({
      petId: '5',
      quantity: 8,
      status: 'pending',
    });
    expect(
      await updateEntry(client, testTableNames.inventory, '5', change, undefined, keyed('a')),
    ).toStrictEqual({
      petId: '5',
      quantity: 8,
      status: 'pending',
    });
    expect(await updateEntry(client, testTableNames.inventory, '5', change, undefined, keyed('b'))).toBe(
      'key_reused',
    );
    expect(await stored('5')).toStrictEqual(
      inventoryRecord('5', 8, 'pending', { reason: 'sale', keyId: 'key1' }),
    );
  });
});

describe('getInventoryItem', () => {
  test('the entry with its reorder point, or undefined', async () => {
    expect(await getInventoryItem(client, testTableNames.inventory, '6')).toStrictEqual({
      petId: '6',
      quantity: 4,
      status: 'available',
      reorderPoint: 3,
    });
    expect(await getInventoryItem(client, testTableNames.inventory, '7')).toBeUndefined();
  });
});
