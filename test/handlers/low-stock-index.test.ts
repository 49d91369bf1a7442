import { describe, expect, test } from 'vitest';
import { listShardOf } from '#lib/inventory/list-shard.ts';
import { indexLowStock, isLow, type LowStockState } from '#lib/inventory/low-stock.ts';
import { proxiedInventorySuite } from '#test/support/handler-suite.ts';
import { inventoryRecord, putItems, type RawItem, scanTable } from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const suite = proxiedInventorySuite();

describe('isLow', () => {
  test('low while the quantity is at or below the reorder point', () => {
    expect(isLow(4, 5)).toBe(true);
    expect(isLow(5, 5)).toBe(true);
    expect(isLow(0, 0)).toBe(true);
  });

  test('not low above the reorder point, nor without one', () => {
    expect(isLow(6, 5)).toBe(false);
    expect(isLow(1, 0)).toBe(false);
    expect(isLow(0, undefined)).toBe(false);
  });
});

describe('indexLowStock', () => {
  /** An entry of `quantity` with the reorder point `reorderPoint` (none: undefined), carrying `lowShard` or not. */
  const entry = (
    petId: string,
    quantity: number,
    reorderPoint: number | undefined,
    lowShard: boolean,
  ): RawItem => ({
    ...inventoryRecord(petId, quantity, 'available'),
    ...(reorderPoint !== undefined && { reorderPoint: { N: String(reorderPoint) } }),
    ...(lowShard && { lowShard: { N: String(listShardOf(petId)) } }),
  });

  /** Brings the index in line with `states` through the proxy; the error it throws, or undefined. */
  const index = (states: readonly LowStockState[]) =>
    suite.errorOf((client) => indexLowStock(client, testTableNames.inventory, states));

  const stored = () => scanTable(suite.db.client, testTableNames.inventory);
  const byPetId = (items: RawItem[]) => [...items].sort((a, b) => Number(a.petId?.N) - Number(b.petId?.N));

  test('sets the attribute (the list shard) on an entry that became low, removes it from one that no longer is', async () => {
    await putItems(suite.db.client, testTableNames.inventory, [
      entry('1', 3, 5, false),
      entry('2', 8, 5, true),
    ]);

    expect(
      await index([
        { petId: '1', low: true, indexed: false },
        { petId: '2', low: false, indexed: true },
      ]),
    ).toBeUndefined();

    expect(byPetId(await stored())).toStrictEqual([entry('1', 3, 5, true), entry('2', 8, 5, false)]);
  });

  test('removes the attribute from an entry whose reorder point was cleared', async () => {
    await putItems(suite.db.client, testTableNames.inventory, [entry('3', 0, undefined, true)]);
    expect(await index([{ petId: '3', low: false, indexed: true }])).toBeUndefined();
    expect(await stored()).toStrictEqual([entry('3', 0, undefined, false)]);
  });

  test('writes only the entries whose state differs from their attribute', async () => {
    await putItems(suite.db.client, testTableNames.inventory, [
      entry('4', 1, 5, true),
      entry('5', 9, 5, false),
      entry('6', 2, 5, false),
    ]);

    expect(
      await index([
        { petId: '4', low: true, indexed: true },
        { petId: '5', low: false, indexed: false },
        { petId: '6', low: true, indexed: false },
      ]),
    ).toBeUndefined();

    expect(suite.proxy.operations).toEqual(['UpdateItem']);
    expect(byPetId(await stored())).toStrictEqual([
      entry('4', 1, 5, true),
      entry('5', 9, 5, false),
      entry('6', 2, 5, true),
    ]);
  });

  test('a later write decides: no attribute on an entry no longer low, kept on one low again, no entry made for a deleted pet', async () => {
    await putItems(suite.db.client, testTableNames.inventory, [
      entry('7', 6, 5, false),
      entry('8', 5, 5, true),
    ]);

    expect(
      await index([
        { petId: '7', low: true, indexed: false },
        { petId: '8', low: false, indexed: true },
        { petId: '9', low: false, indexed: true },
      ]),
    ).toBeUndefined();

    expect(suite.proxy.operations).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
    expect(byPetId(await stored())).toStrictEqual([entry('7', 6, 5, false), entry('8', 5, 5, true)]);
  });

  test('throws a DynamoDB error other than a failed condition (the batch is retried)', async () => {
    await putItems(suite.db.client, testTableNames.inventory, [entry('10', 1, 5, false)]);
    suite.proxy.fail();

    expect(await index([{ petId: '10', low: true, indexed: false }])).toMatchObject({
      name: 'InternalServerError',
    });
    suite.proxy.restore();
    expect(await stored()).toStrictEqual([entry('10', 1, 5, false)]);
  });
});
