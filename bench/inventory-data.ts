/**
 * Generated inventory entries for the scaling runs: distinct petIds spread over the whole int64 range (most
 * have 18 or 19 digits, half are negative), quantities 0..999 and all three statuses, deterministic so every
 * run measures the same table.
 */
import { type InventoryItem, petStatuses } from '#lib/inventory/inventory-item.ts';

const int63 = 2n ** 63n;
/** An odd multiplier: i -> i * multiplier mod 2^63 is a bijection, so the petIds are distinct. */
const multiplier = 6364136223846793005n;

/** Entries with index `from` (inclusive) to `to` (exclusive) of the deterministic sequence. */
export function generateInventory(from: number, to: number): InventoryItem[] {
  const items: InventoryItem[] = [];
  for (let i = from; i < to; i++) {
    const magnitude = (BigInt(i + 1) * multiplier) % int63;
    items.push({
      petId: (i % 2 === 0 ? magnitude : -magnitude).toString(),
      quantity: i % 1000,
      status: petStatuses[i % petStatuses.length] as InventoryItem['status'],
    });
  }
  return items;
}
