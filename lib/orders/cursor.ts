/** listOrders' opaque `cursor`: docs/contract.md "Store orders". */
import { invalidRequest } from '../http/errors.ts';
import { toPetId } from '../inventory/pet-id.ts';

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
