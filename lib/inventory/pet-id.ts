/** petId and other int64 identifiers' parsing: docs/service-spec.md §4.2; docs/contract.md "Identifiers". */
import { invalidRequest } from '../http/errors.ts';
import { exactInteger } from '../json-integers.ts';

const canonicalInt = /^-?(0|[1-9][0-9]*)$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** The rule for the signed 64-bit identifier `what` (petId, orderId, a label's id), as a client reads it in a 400 message. */
export function int64Rule(what: string): string {
  return `${what} must be an integer from -9223372036854775808 to 9223372036854775807`;
}

/** True when `value` is in the signed 64-bit range. */
function isInt64(value: bigint): boolean {
  return value >= int64Min && value <= int64Max;
}

/**
 * The canonical decimal text of the JSON body member `what`, an exact integer in the signed 64-bit range.
 * @throws HttpError 400 `invalid_request` with {@link int64Rule} otherwise (a string, a fraction, out of range).
 */
export function int64Member(value: unknown, what: string): string {
  const id = exactInteger(value);
  if (id === undefined || !isInt64(id)) throw invalidRequest(int64Rule(what));
  return id.toString();
}

/** The rule as the client reads it in a 400 message. */
export const petIdRule = int64Rule('petId');

/**
 * Returns the canonical decimal string of a petId, or undefined when `text` is not one: a signed 64-bit
 * integer written `-?(0|[1-9][0-9]*)`, in range. `-0` is accepted and becomes `0`.
 */
export function toPetId(text: string): string | undefined {
  if (!canonicalInt.test(text)) return undefined;
  const value = BigInt(text);
  return isInt64(value) ? value.toString() : undefined;
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
