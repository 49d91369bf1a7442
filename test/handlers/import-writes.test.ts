import { describe, expect, test } from 'vitest';
import { IncompleteWriteError, maxBatchAttempts, putEntries } from '#lib/inventory/batch-put.ts';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import type { PetDetails } from '#lib/inventory/pet-details.ts';
import { proxiedInventorySuite } from '#test/support/handler-suite.ts';
import { importedRecord, scanTable } from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const suite = proxiedInventorySuite();

/** `count` entries with petIds 1..count. */
const entries = (count: number): InventoryItem[] =>
  Array.from({ length: count }, (_, index) => ({
    petId: String(index + 1),
    quantity: index,
    status: 'sold',
  }));

/** Writes `items` through the proxy; the error it throws, or undefined. */
const put = (items: readonly (InventoryItem & { details?: PetDetails })[]) =>
  suite.errorOf((client) => putEntries(client, testTableNames.inventory, items));

/** The entries stored, as the import writes them. */
const stored = () => scanTable(suite.db.client, testTableNames.inventory);
const importedEntries = (items: readonly InventoryItem[]) =>
  items.map(({ petId, quantity, status }) => importedRecord(petId, quantity, status));
const batchWrites = () => suite.proxy.operations.filter((operation) => operation === 'BatchWriteItem').length;

describe('putEntries', () => {
  test('writes 60 entries in requests of 25, 25 and 10', async () => {
    expect(await put(entries(60))).toBeUndefined();
    expect(batchWrites()).toBe(3);
    expect(await stored()).toStrictEqual(importedEntries(entries(60)));
  });

  test("writes an entry's pet details when it has them", async () => {
    expect(
      await put([{ petId: '1', quantity: 0, status: 'sold', details: { name: 'Rex' } }]),
    ).toBeUndefined();
    expect(await stored()).toStrictEqual([
      { ...importedRecord('1', 0, 'sold'), name: { S: 'Rex' }, photoUrls: { L: [] }, tags: { L: [] } },
    ]);
  });

  test('writes 25 entries in one request, 50 in two', async () => {
    expect(await put(entries(25))).toBeUndefined();
    expect(batchWrites()).toBe(1);
    expect(await put(entries(50))).toBeUndefined();
    expect(batchWrites()).toBe(3);
    expect(await stored()).toStrictEqual(importedEntries(entries(50)));
  });

  test('sends the unprocessed items of a request again until DynamoDB takes them', async () => {
    suite.proxy.fault = (operation, writes) =>
      operation === 'BatchWriteItem' && writes >= 2 && writes <= 4 ? 'unprocessed' : 'pass';
    expect(await put(entries(30))).toBeUndefined();
    expect(batchWrites()).toBe(5);
    expect(await stored()).toStrictEqual(importedEntries(entries(30)));
  });

  test(`stops after ${maxBatchAttempts} requests of a batch left unprocessed, saying how many entries were written`, async () => {
    suite.proxy.fault = (operation, writes) =>
      operation === 'BatchWriteItem' && writes >= 3 ? 'unprocessed' : 'pass';
    const error = await put(entries(70));
    expect(error).toBeInstanceOf(IncompleteWriteError);
    expect(error).toMatchObject({
      name: 'IncompleteWriteError',
      written: 50,
      message: `DynamoDB left 20 item(s) unprocessed after ${maxBatchAttempts} attempts (throttled)`,
    });
    expect(batchWrites()).toBe(2 + maxBatchAttempts);
    expect(await stored()).toStrictEqual(importedEntries(entries(50)));
  });

  test('stops at a request DynamoDB fails, saying how many entries were written and why', async () => {
    suite.proxy.fault = (operation, writes) =>
      operation === 'BatchWriteItem' && writes >= 2 ? 'error' : 'pass';
    const error = await put(entries(40));
    expect(error).toBeInstanceOf(IncompleteWriteError);
    expect(error).toMatchObject({
      name: 'IncompleteWriteError',
      written: 25,
      message: 'DynamoDB failed: InternalServerError: fault',
    });
    expect((error as Error).cause).toMatchObject({ name: 'InternalServerError' });
    expect(await stored()).toStrictEqual(importedEntries(entries(25)));
  });
});
