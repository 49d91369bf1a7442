/** Signed 64-bit identifiers, petId and orderId (docs/contract.md "Identifiers"). */
import { invalidRequest } from './http/errors.ts';
import { exactInteger } from './json-integers.ts';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** The rule for the identifier `what`, as a client reads it in a 400 message. */
export function int64Rule(what: string): string {
  return `${what} must be an integer from -9223372036854775808 to 9223372036854775807`;
}

/** True when `value` is in the signed 64-bit range. */
export function isInt64(value: bigint): boolean {
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
