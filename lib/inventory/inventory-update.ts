/** InventoryUpdate, updateInventory's body: docs/service-spec.md §4.2; docs/contract.md "InventoryUpdate". */
import { invalidRequest, listedNames } from '../http/errors.ts';
import { isQuantity, quantityRule } from './quantity.ts';

/** The validated body: the new stock count. */
export interface InventoryUpdate {
  quantity: number;
}

/**
 * Validates a parsed JSON body as an InventoryUpdate: an object whose one member is `quantity`.
 * @throws HttpError 400 `invalid_request` naming the problem, unknown members by name (at most five, each cut
 *   to 64 characters).
 */
export function parseInventoryUpdate(body: unknown): InventoryUpdate {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('request body must be a JSON object such as {"quantity": 5}');
  }
  const unknownMembers = Object.keys(body).filter((member) => member !== 'quantity');
  if (unknownMembers.length > 0) {
    throw invalidRequest(
      `request body may only contain quantity; not allowed: ${listedNames(unknownMembers)}`,
    );
  }
  if (!Object.hasOwn(body, 'quantity')) throw invalidRequest('quantity is required');
  const { quantity } = body as { quantity: unknown };
  if (!isQuantity(quantity)) throw invalidRequest(quantityRule);
  return { quantity };
}
