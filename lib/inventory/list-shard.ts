/** The list index shard of a petId (the index: lib/tables.ts): docs/architecture.md "Data layout". */
import { listIndex } from '../tables.ts';

/** FNV-1a (32 bit, unsigned) of `text`'s UTF-16 units: spreads consecutive or patterned ids evenly. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * The shard of `petId` (canonical decimal int64): FNV-1a (32 bit) of its decimal text, modulo
 * {@link listIndex}.shards, so consecutive or patterned ids spread evenly over the shards.
 */
export function listShardOf(petId: string): number {
  return fnv1a32(petId) % listIndex.shards;
}
