/** Change records the event and webhook suites send (docs/contract.md "History and events"). */
import type { InventoryChange, OrderChange } from '#lib/events/changes.ts';

/**
 * An order placed (status from null): orderId past 2^53 and petId the int64 minimum, so neither id survives a
 * JSON.parse number; its event id is `order.1795685400123000001.placed`.
 */
export const placedOrderChange: OrderChange = {
  orderId: '1795685400123000001',
  occurredAt: '2026-11-26T09:31:00.000Z',
  status: { from: null, to: 'placed' },
  order: {
    id: '1795685400123000001',
    petId: '-9223372036854775808',
    quantity: 1,
    status: 'placed',
    complete: false,
  },
};

/**
 * A change of a pet's stock alone, at 2026-11-26T09:30:00.123Z by the key `3f2a9c0d1b7e`, its status
 * `available` before and after: `change` gives its sequence, petId, reason, quantity (and orderId).
 */
export function stockChange({
  sequence,
  petId,
  reason,
  quantity,
  orderId,
}: Pick<InventoryChange, 'sequence' | 'petId' | 'reason' | 'quantity' | 'orderId'>): InventoryChange {
  // In the contract's order of members.
  return {
    sequence,
    petId,
    occurredAt: '2026-11-26T09:30:00.123Z',
    reason,
    quantity,
    status: { from: 'available', to: 'available' },
    ...(orderId === undefined ? {} : { orderId }),
    keyId: '3f2a9c0d1b7e',
  };
}
