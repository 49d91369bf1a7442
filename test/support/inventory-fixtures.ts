/** Inventories the suites seed, and the exact list body a client must receive (docs/contract.md "Inventory semantics"). */
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import { inventoryItemJson } from './contract-oracle.ts';
import { petIdsInShard } from './raw-tables.ts';

/**
 * Entries whose petIds span the int64 range (both ends, negatives, zero, beyond 2^53), listed in an order that is
 * neither numeric nor lexicographic. No entry for 8, 11, -7 or 9223372036854775806.
 */
export const int64Inventory: readonly InventoryItem[] = [
  { petId: '10', quantity: 10, status: 'available' },
  { petId: '9223372036854775807', quantity: 2147483647, status: 'sold' },
  { petId: '-1', quantity: 1, status: 'pending' },
  { petId: '9', quantity: 9, status: 'available' },
  { petId: '-9223372036854775808', quantity: 0, status: 'available' },
  { petId: '7', quantity: 7, status: 'available' },
  { petId: '9007199254740993', quantity: 5, status: 'pending' },
  { petId: '0', quantity: 3, status: 'sold' },
  { petId: '-10', quantity: 4, status: 'sold' },
];

/** `items` sorted by petId in numeric order, compared as int64 (BigInt), independent of lib/. */
export function sortedByPetId<T extends { petId: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (BigInt(a.petId) < BigInt(b.petId) ? -1 : 1));
}

/** The exact body of listInventory for a table holding `items`: a JSON array sorted by petId. */
export function listBody(items: readonly InventoryItem[]): string {
  return `[${sortedByPetId(items).map(inventoryItemJson).join(',')}]`;
}

/**
 * `count` entries of `quantity` and `status`, petIds from `from` up, that all land in list shard `shard`: a list
 * that needs several Query pages of one index partition.
 */
export function crowdedShard(
  shard: number,
  count: number,
  from: number,
  quantity: number,
  status: InventoryItem['status'],
): InventoryItem[] {
  return petIdsInShard(shard, count, from).map((petId) => ({ petId, quantity, status }));
}
