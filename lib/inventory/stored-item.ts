/** An inventory entry as stored in the inventory table: docs/architecture.md "Data layout". */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { listIndex } from '../tables.ts';
import type { InventoryItem, PetStatus } from './inventory-item.ts';
import { listShardOf } from './list-shard.ts';

/** Raw item as read by the project's document clients: numbers arrive as NumberValue. */
type StoredItem = {
  petId: NumberValue;
  quantity: NumberValue;
  status: PetStatus;
  reorderPoint?: NumberValue;
};

/**
 * The InventoryItem of a stored item read with at least `petId`, `quantity` and `status` (and `reorderPoint`,
 * when projected and present).
 */
export function fromStoredItem(item: Record<string, unknown>): InventoryItem {
  const { petId, quantity, status, reorderPoint } = item as StoredItem;
  return {
    petId: petId.toString(),
    quantity: Number(quantity.toString()),
    status,
    ...(reorderPoint === undefined ? {} : { reorderPoint: Number(reorderPoint.toString()) }),
  };
}

/** The item as written: the entry's attributes and its list shard (`list-shard.ts`). */
export function storedItem({
  petId,
  quantity,
  status,
  reorderPoint,
}: InventoryItem): Record<string, unknown> {
  return {
    petId: NumberValue.from(petId),
    quantity,
    status,
    ...(reorderPoint === undefined ? {} : { reorderPoint }),
    [listIndex.shardAttribute]: listShardOf(petId),
  };
}
