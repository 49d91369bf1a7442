import { expect, test } from 'vitest';
import { inventoryJson } from '#lib/inventory/inventory-item.ts';

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
