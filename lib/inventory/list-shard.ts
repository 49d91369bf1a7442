/** The list index shard of a petId (the index: lib/tables.ts): docs/architecture.md "Data layout". */
import { listIndex } from '../tables.ts';

/**
 * The shard of `petId` (canonical decimal int64): FNV-1a (32 bit) of its decimal text, modulo
 * {@link listIndex}.shards, so consecutive or patterned ids spread evenly over the shards.
 */
export function listShardOf(petId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < petId.length; i++) hash = Math.imul(hash ^ petId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % listIndex.shards;
}
