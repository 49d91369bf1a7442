/** Integers judged on their JSON source text: docs/contract.md "Integers in request bodies". */

/** `-`, integer digits, fraction digits, exponent: the parts of an RFC 8259 number literal. */
const numberLiteral = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** An integer literal without fraction or exponent, of at most 15 digits (below 2^53). */
const plainSafeInteger = /^-?(?:0|[1-9][0-9]{0,14})$/;

/** The character code of `0`. */
const zero = 0x30;

/** Most significant digits plus exponent {@link jsonInteger} computes: beyond any integer field of the service (int64 has 19). */
const maxDigits = 40;

/**
 * The integer the JSON number literal `source` denotes, exactly, in time linear in its length.
 * @returns undefined when `source` denotes a non-integer, is not a number literal, or has more than 40 digits
 *   once written without exponent (larger than any integer the service accepts).
 */
export function jsonInteger(source: string): bigint | undefined {
  const match = numberLiteral.exec(source);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponentText = '0'] = match;
  const significant = `${whole}${fraction}`;
  // Leading and trailing zeros found by one walk each, not by an unanchored regex: `/0+$/` retries from every
  // zero and is quadratic in a long run of zeros (docs/contract.md "Bounded cost, clean shutdown").
  let first = 0;
  while (first < significant.length && significant.charCodeAt(first) === zero) first++;
  if (first === significant.length) return 0n;
  let end = significant.length;
  while (significant.charCodeAt(end - 1) === zero) end--;
  // The value is digits x 10^exponent, with digits ending in a non-zero digit.
  const exponent = Number(exponentText) - fraction.length + (significant.length - end);
  if (exponent < 0 || end - first + exponent > maxDigits) return undefined;
  const value = BigInt(significant.slice(first, end)) * 10n ** BigInt(exponent);
  return sign === '-' ? -value : value;
}

/**
 * A JSON number of a request that is not an exact safe integer: a non-integer, or an integer a double would
 * round. Kept as its source text, so no rounded double reaches validation.
 */
export class InexactNumber {
  readonly source: string;

  constructor(source: string) {
    this.source = source;
  }
}

/**
 * A `JSON.parse` reviver that gives every number as an exact safe integer (`5.0` is 5) or, otherwise, as an
 * {@link InexactNumber}. Other values are returned as parsed. Needs the reviver's `context.source` (TC39
 * "JSON.parse source text access").
 */
export function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  // A plain literal of at most 15 digits is always an exact safe integer: no need for the exact reading below.
  if (plainSafeInteger.test(context.source)) return value;
  const integer = jsonInteger(context.source);
  return integer !== undefined && Number.isSafeInteger(value) ? value : new InexactNumber(context.source);
}

/**
 * The exact integer a parsed JSON number denotes ({@link exactIntegers}: a safe integer arrives as a number,
 * anything else as an {@link InexactNumber} of its source text), or undefined for a non-integer or another type.
 */
export function exactInteger(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  return value instanceof InexactNumber ? jsonInteger(value.source) : undefined;
}
