/** The exact JSON of change records: ids digit for digit, as every answer of the API writes them (docs/contract.md "Identifiers"). */
import { orderValue } from '../orders/order.ts';
import { type ChangeEvent, type InventoryChange, type OrderChange, withIdsAs } from './changes.ts';

/** The JSON value of an InventoryChange: `petId` and `orderId` as exact JSON numbers, members in the contract's order. */
function inventoryChangeValue(change: InventoryChange) {
  return withIdsAs(change, (id) => JSON.rawJSON(id));
}

/** The JSON value of an OrderChange: `orderId` and the order's ids as exact JSON numbers. */
function orderChangeValue(change: OrderChange) {
  const { orderId, occurredAt, status, order, keyId } = change;
  return {
    orderId: JSON.rawJSON(orderId),
    occurredAt,
    status,
    order: orderValue(order),
    ...(keyId === undefined ? {} : { keyId }),
  };
}

/** The JSON value of an event's record: its ids as exact JSON numbers (`JSON.rawJSON`), members in the contract's order. */
export function changeValue(event: ChangeEvent): unknown {
  if (event.type === 'inventory.changed') return inventoryChangeValue(event.data);
  if (event.type === 'order.changed') return orderChangeValue(event.data);
  const { petId, quantity, reorderPoint, sequence } = event.data;
  return { petId: JSON.rawJSON(petId), quantity, reorderPoint, sequence };
}

/** The exact JSON text of an event's record ({@link changeValue}): the bus's `detail`, the feed's stored `data`. */
export function changeJson(event: ChangeEvent): string {
  return JSON.stringify(changeValue(event));
}

/**
 * A JSON.parse reviver that keeps every number as its source text (`JSON.rawJSON`), so that `JSON.stringify`
 * writes a stored record (a {@link changeJson} text) back byte for byte, ids digit for digit.
 */
export function exactNumbers(_key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === 'number' && context?.source !== undefined ? JSON.rawJSON(context.source) : value;
}

/** The exact JSON text of a page of a pet's history (listInventoryHistory's body). */
export function historyJson(changes: readonly InventoryChange[]): string {
  return JSON.stringify(changes.map(inventoryChangeValue));
}

/** The members that hold ids (exact JSON numbers in the text, decimal strings in the types). */
const idMembers = new Set(['petId', 'orderId', 'id']);

/**
 * A JSON.parse reviver that reads the id members of change records (`petId`, `orderId`, `id`) as their
 * decimal text, digit for digit (JSON.parse source text access), at any depth; other values as JSON.parse does.
 */
export function exactIds(key: string, value: unknown, context?: { source?: string }): unknown {
  return idMembers.has(key) && typeof value === 'number' && context?.source !== undefined
    ? context.source
    : value;
}
