/** The `limit` query parameter of the list operations (listOrders, listInventoryHistory, listEvents, listWebhookAttempts): docs/contract.md "Store orders". */
import { invalidRequest } from './errors.ts';

/** Items per page when `limit` is absent, and the largest `limit`. */
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
