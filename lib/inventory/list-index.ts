/**
 * The layout that lets DynamoDB return the inventory in petId order (docs/contract.md "Inventory semantics";
 * docs/architecture.md "Data layout"): a global secondary index whose partition key is a shard number derived
 * from petId and whose sort key is petId itself. DynamoDB sorts a Number sort key numerically, negative values
 * and all 19 digits of an int64 included, so each shard's Query returns its entries in petId order, and a merge
 * of the shards' pages gives the whole sorted list without holding the table.
 */

/** The index: its name, its partition key (the shard) and sort key, and the shard count. */
export const listIndex = {
  name: 'byPetId',
  shardAttribute: 'listShard',
  sortAttribute: 'petId',
  /** Index partitions the writes spread over; each caps its own write rate, so the index takes 8 times one's. */
  shards: 8,
} as const;

/**
 * The shard of `petId` (canonical decimal int64): FNV-1a (32 bit) of its decimal text, modulo
 * {@link listIndex}.shards, so consecutive or patterned ids spread evenly over the shards.
 */
export function listShardOf(petId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < petId.length; i++) hash = Math.imul(hash ^ petId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % listIndex.shards;
}
