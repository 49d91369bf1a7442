/** listOrders' `limit` and opaque `cursor`: docs/contract.md "Store orders". */
import { invalidRequest } from '../http/errors.ts';
import { toPetId } from '../inventory/pet-id.ts';

/** Orders per page when `limit` is absent, and the largest `limit`. */
export const pageLimits = { default: 100, max: 1000 } as const;

/**
 * The page size of a `limit` query parameter (absent: 100).
 * @throws HttpError 400 `invalid_request` unless it is a decimal integer from 1 to 1000 without sign or zeros.
 */
export function parseLimit(text: string | undefined): number {
  if (text === undefined) return pageLimits.default;
  if (!/^[1-9][0-9]{0,3}$/.test(text) || Number(text) > pageLimits.max) {
    throw invalidRequest(`limit must be an integer from 1 to ${pageLimits.max}`);
  }
  return Number(text);
}

/** The cursor that continues after the order `orderId`. */
export function cursorAfter(orderId: string): string {
  return Buffer.from(orderId).toString('base64url');
}

/**
 * The orderId a `cursor` continues after, or undefined when absent.
 * @throws HttpError 400 `invalid_request` when it is not a cursor this service wrote.
 */
export function parseCursor(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const orderId = /^[A-Za-z0-9_-]{1,32}$/.test(text) ? Buffer.from(text, 'base64url').toString() : '';
  const canonical = toPetId(orderId);
  if (canonical === undefined || canonical !== orderId || cursorAfter(canonical) !== text) {
    throw invalidRequest('cursor is not valid: use the one of the Link header of the previous page');
  }
  return canonical;
}
