import { expect, test } from 'vitest';
import { type InventoryItem, inventoryJson, inventoryValue } from '#lib/inventory/inventory-item.ts';

test('writes petId as a JSON number literal, digit for digit beyond 2^53', () => {
  expect(inventoryJson({ petId: '9223372036854775807', quantity: 2147483647, status: 'sold' })).toBe(
    '{"petId":9223372036854775807,"quantity":2147483647,"status":"sold"}',
  );
});

test('writes a list as an array of objects with exactly petId, quantity, status', () => {
  expect(
    inventoryJson([
      { petId: '-9223372036854775808', quantity: 0, status: 'available' },
      { petId: '7', quantity: 3, status: 'pending' },
    ]),
  ).toBe(
    '[{"petId":-9223372036854775808,"quantity":0,"status":"available"},{"petId":7,"quantity":3,"status":"pending"}]',
  );
  expect(inventoryJson([])).toBe('[]');
});

test('writes the JSON value of an item (answers that add members) as the same text, reorderPoint last', () => {
  const items: InventoryItem[] = [
    { petId: '9223372036854775807', quantity: 2147483647, status: 'sold' },
    { petId: '-9223372036854775808', quantity: 0, status: 'available', reorderPoint: 2147483647 },
  ];
  for (const item of items) expect(JSON.stringify(inventoryValue(item))).toBe(inventoryJson(item));
  expect(JSON.stringify(inventoryValue(items[1] as InventoryItem))).toBe(
    '{"petId":-9223372036854775808,"quantity":0,"status":"available","reorderPoint":2147483647}',
  );
});
