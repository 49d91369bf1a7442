/**
 * Adjustments, `adjustBy` added to the current quantity, and their refusals: docs/contract.md "Inventory
 * semantics" (Adjustments) and "Errors" (`insufficient_stock`, `quantity_out_of_range`).
 */
import type { Refusal } from '../idempotency/idempotency-key.ts';
import { maxQuantity } from './quantity.ts';

/**
 * The condition that keeps `quantity + :adjustBy` within 0..2147483647, on the stored quantity: for a decrease
 * `quantity >= :need` (need = -adjustBy), for an increase `quantity <= :room` (room = 2147483647 - adjustBy).
 */
export function adjustmentCondition(adjustBy: number): {
  expression: string;
  values: Record<string, number>;
} {
  return adjustBy < 0
    ? { expression: 'quantity >= :need', values: { ':need': -adjustBy } }
    : { expression: 'quantity <= :room', values: { ':room': maxQuantity - adjustBy } };
}

/**
 * The 409 of an adjustment `adjustBy` of the entry of `petId` that holds `quantity` and that the range refuses:
 * `insufficient_stock` for a decrease, `quantity_out_of_range` for an increase. Names the stock and the result.
 */
export function adjustmentRefusal(petId: string, quantity: number, adjustBy: number): Refusal {
  const result = quantity + adjustBy;
  return adjustBy < 0
    ? {
        code: 'insufficient_stock',
        message: `petId ${petId} has ${quantity} in stock; adjustBy ${adjustBy} would leave ${result}`,
      }
    : {
        code: 'quantity_out_of_range',
        message: `petId ${petId} has ${quantity} in stock; adjustBy ${adjustBy} would make ${result}, more than ${maxQuantity}`,
      };
}

/** True when `adjustBy` keeps `quantity` within 0..2147483647. */
export function adjustable(quantity: number, adjustBy: number): boolean {
  const result = quantity + adjustBy;
  return result >= 0 && result <= maxQuantity;
}
