/** fast-check arbitraries of JSON request bodies mixing valid and invalid members (docs/contract.md "InventoryUpdate"). */
import fc from 'fast-check';

/**
 * The JSON text of an object of up to `maxLength` members drawn from `member` (a name and the JSON text of its
 * value), each name at most once, in the order drawn.
 */
export function jsonObjectOf(
  member: fc.Arbitrary<readonly [string, string]>,
  maxLength: number,
): fc.Arbitrary<string> {
  return fc
    .uniqueArray(member, { maxLength, selector: ([name]) => name })
    .map((members) => `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`);
}
