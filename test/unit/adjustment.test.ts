/** lib/inventory/adjustment.ts: the range of an adjustment and its 409s (docs/contract.md "Inventory semantics"). */
import { describe, expect, test } from 'vitest';
import { adjustable, adjustmentCondition, adjustmentRefusal } from '#lib/inventory/adjustment.ts';

describe('adjustments', () => {
  test.each([
    [3, -3, true],
    [3, -4, false],
    [0, 2147483647, true],
    [1, 2147483647, false],
    [2147483647, -2147483647, true],
    [2147483640, 8, false],
  ])('%i adjusted by %i stays within 0..2147483647: %s', (quantity, adjustBy, expected) => {
    expect(adjustable(quantity, adjustBy)).toBe(expected);
  });

  test('the condition a write carries: enough stock for a decrease, room for an increase', () => {
    expect(adjustmentCondition(-5)).toStrictEqual({
      expression: 'quantity >= :need',
      values: { ':need': 5 },
    });
    expect(adjustmentCondition(7)).toStrictEqual({
      expression: 'quantity <= :room',
      values: { ':room': 2147483640 },
    });
  });

  test('the 409 names the stock, the adjustment and its result', () => {
    expect(adjustmentRefusal('3', 2, -5)).toStrictEqual({
      code: 'insufficient_stock',
      message: 'petId 3 has 2 in stock; adjustBy -5 would leave -3',
    });
    expect(adjustmentRefusal('3', 2147483640, 10)).toStrictEqual({
      code: 'quantity_out_of_range',
      message: 'petId 3 has 2147483640 in stock; adjustBy 10 would make 2147483650, more than 2147483647',
    });
  });
});
