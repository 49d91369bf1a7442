/** The list index shard of a petId (the index: lib/tables.ts): docs/architecture.md "Data layout". */
import { fnv1a32 } from '../fnv1a.ts';
import { listIndex } from '../tables.ts';

/**
 * The shard of `petId` (canonical decimal int64): FNV-1a (32 bit) of its decimal text, modulo
 * {@link listIndex}.shards, so consecutive or patterned ids spread evenly over the shards.
 */
export function listShardOf(petId: string): number {
  return fnv1a32(petId) % listIndex.shards;
}
