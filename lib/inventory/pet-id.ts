/** petId parsing: docs/service-spec.md §4.2; docs/contract.md "Identifiers". */
import { invalidRequest } from '../http/errors.ts';
import { exactInteger } from '../json-integers.ts';

const canonicalInt = /^-?(0|[1-9][0-9]*)$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** The rule as the client reads it in a 400 message. */
export const petIdRule = 'petId must be an integer from -9223372036854775808 to 9223372036854775807';

/**
 * Returns the canonical decimal string of a petId, or undefined when `text` is not one: a signed 64-bit
 * integer written `-?(0|[1-9][0-9]*)`, in range. `-0` is accepted and becomes `0`.
 */
export function toPetId(text: string): string | undefined {
  if (!canonicalInt.test(text)) return undefined;
  const value = BigInt(text);
  return value >= int64Min && value <= int64Max ? value.toString() : undefined;
}

/**
 * The canonical petId of a JSON member of a request body, parsed by lib/http/json-body.ts (integers judged on
 * their source text: lib/json-integers.ts), or undefined when it is not an integer in the int64 range.
 */
export function petIdOfJson(value: unknown): string | undefined {
  const petId = exactInteger(value);
  return petId !== undefined && petId >= int64Min && petId <= int64Max ? petId.toString() : undefined;
}

/**
 * The petId of a request path.
 * @throws HttpError 400 `invalid_request` when `text` is missing or not a canonical int64 (`abc`, `1.5`, `01`,
 *   `+1`, ` 1`, out of range, empty).
 */
export function parsePetId(text: string | undefined): string {
  const petId = text === undefined ? undefined : toPetId(text);
  if (petId === undefined)
    throw invalidRequest(`${petIdRule}, written in decimal without leading zeros or '+'`);
  return petId;
}

/**
 * Orders two canonical petIds numerically (for sorting lists by petId ascending, docs/contract.md "Inventory semantics")
 * without converting them to BigInt: by sign, then length, then digits.
 */
export function comparePetIds(a: string, b: string): number {
  const aNegative = a.startsWith('-');
  if (aNegative !== b.startsWith('-')) return aNegative ? -1 : 1;
  const byMagnitude = a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  return aNegative ? 0 - byMagnitude : byMagnitude;
}
