/** The quantity rule, a JSON integer from 0 to 2147483647: docs/contract.md "InventoryUpdate". */

/** Largest accepted quantity: the largest signed 32-bit integer. */
export const maxQuantity = 2147483647;

/** The rule as the client reads it in a 400 message. */
export const quantityRule = `quantity must be an integer from 0 to ${maxQuantity}`;

/**
 * True when `value` is an accepted quantity: a number with no fractional part from 0 to 2147483647.
 * Strings, booleans, null, arrays and objects are not. (As in JSON Schema, `5.0` is the integer 5.)
 */
export function isQuantity(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= maxQuantity;
}
