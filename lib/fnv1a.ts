/** FNV-1a, the hash that spreads keys over shards and logs (lib/inventory/list-shard.ts, lib/events/event-logs.ts). */

/** FNV-1a (32 bit, unsigned) of `text`'s UTF-16 units: spreads consecutive or patterned ids evenly. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
