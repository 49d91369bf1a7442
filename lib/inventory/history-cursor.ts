/**
 * listInventoryHistory's opaque `cursor` (docs/contract.md "History and events"): the base64url text of the
 * `sequence` the next page continues below, as lib/events/history-store.ts `HistoryPage.next` gives it.
 */
import { invalidRequest } from '../http/errors.ts';

/** The cursor of the page after the record `sequence` (decimal text, a `HistoryPage.next`). */
export function historyCursor(sequence: string): string {
  return Buffer.from(sequence).toString('base64url');
}

/**
 * The sequence (decimal text) a `cursor` continues below, exclusive, or undefined when absent.
 * @throws HttpError 400 `invalid_request` unless {@link historyCursor} wrote it for a sequence from 1 to
 *   2^53 - 1 (no sign, no leading zeros, no padding).
 */
export function parseHistoryCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const sequence = /^[A-Za-z0-9_-]{1,24}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  if (
    !/^[1-9][0-9]{0,15}$/.test(sequence) ||
    !Number.isSafeInteger(Number(sequence)) ||
    historyCursor(sequence) !== cursor
  ) {
    throw invalidRequest('cursor is not valid: use the one of the Link header of the previous page');
  }
  return sequence;
}
