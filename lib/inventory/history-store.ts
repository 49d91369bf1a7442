/**
 * The read side of the inventory's change records (listInventoryHistory): a pet's records newest first, in
 * pages with an opaque cursor. docs/contract.md "History and events"; the items are written by the change
 * records' consumer (functions/record-changes) in the shape lib/tables.ts `inventoryHistory` describes.
 */
import { type DynamoDBDocumentClient, NumberValue, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { FromTo, InventoryChange, InventoryChangeReason } from '../events/changes.ts';
import { invalidRequest } from '../http/errors.ts';
import type { PetStatus } from './inventory-item.ts';
import { toPetId } from './pet-id.ts';

/** One page of a pet's history: its records newest first and, when older ones follow, the cursor to them. */
export interface HistoryPage {
  items: InventoryChange[];
  /** The opaque `cursor` of the next page (older records), or undefined on the last page. */
  next?: string;
}

/** The cursor of the page after the record `sequence`: base64url of its decimal digits. */
export function historyCursor(sequence: number): string {
  return Buffer.from(String(sequence)).toString('base64url');
}

/**
 * The sequence a `cursor` continues after (exclusive), or undefined when absent.
 * @throws HttpError 400 `invalid_request` when it is not a cursor {@link historyCursor} wrote.
 */
export function parseHistoryCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const digits = /^[A-Za-z0-9_-]{1,24}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const sequence = /^[1-9][0-9]{0,15}$/.test(digits) ? Number(digits) : 0;
  if (!Number.isSafeInteger(sequence) || sequence < 1 || historyCursor(sequence) !== cursor) {
    throw invalidRequest('cursor is not valid: use the one of the Link header of the previous page');
  }
  return sequence;
}

/** The decimal text of a stored number (a `NumberValue` of the document client) or string. */
function textOf(value: unknown): string {
  return value instanceof NumberValue ? value.toString() : String(value);
}

/** A stored `{from, to}` map; `from` null (or absent) when the change created the entry. */
function fromTo<T>(value: unknown, convert: (stored: unknown) => T): FromTo<T> {
  const { from, to } = (value ?? {}) as { from?: unknown; to?: unknown };
  return { from: from === null || from === undefined ? null : convert(from), to: convert(to) };
}

/**
 * The InventoryChange of a stored history item: numbers from their decimal text, `orderId` from a Number or
 * a String attribute; `streamSequence` (the consumer's bookkeeping) is left out.
 */
export function fromStoredChange(item: Record<string, unknown>): InventoryChange {
  const { sequence, petId, occurredAt, reason, quantity, status, orderId, keyId } = item;
  return {
    sequence: Number(textOf(sequence)),
    petId: textOf(petId),
    occurredAt: String(occurredAt),
    reason: String(reason) as InventoryChangeReason,
    quantity: fromTo(quantity, (stored) => Number(textOf(stored))),
    status: fromTo(status, (stored) => String(stored) as PetStatus),
    ...(orderId === undefined || orderId === null ? {} : { orderId: textOf(orderId) }),
    ...(keyId === undefined || keyId === null ? {} : { keyId: String(keyId) }),
  };
}

/**
 * At most `limit` change records of `petId` from the history table `tableName`, newest first (descending
 * `sequence`), older than the record `cursor` points after when given: Query on the pet's partition, strongly
 * consistent, repeated while DynamoDB's 1 MB pages leave it short.
 * @throws HttpError 400 `invalid_request` for a `cursor` that {@link historyCursor} did not write.
 */
export async function historyPage(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<HistoryPage> {
  const after = parseHistoryCursor(cursor);
  const items: InventoryChange[] = [];
  let start: Record<string, unknown> | undefined;
  // One more than asked tells whether a next page exists.
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression:
          after === undefined ? 'petId = :petId' : 'petId = :petId AND #sequence < :after',
        ...(after === undefined ? {} : { ExpressionAttributeNames: { '#sequence': 'sequence' } }),
        ExpressionAttributeValues: {
          ':petId': NumberValue.from(petId),
          ...(after === undefined ? {} : { ':after': after }),
        },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit + 1 - items.length,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) items.push(fromStoredChange(item));
    start = page.LastEvaluatedKey;
  } while (start && items.length <= limit);
  const shown = items.slice(0, limit);
  const last = shown[shown.length - 1];
  return items.length > limit && last
    ? { items: shown, next: historyCursor(last.sequence) }
    : { items: shown };
}

/**
 * The exact JSON text of InventoryChanges (an array), members in the contract's order: `sequence`, `petId`,
 * `occurredAt`, `reason`, `quantity`, `status`, then `orderId` and `keyId` when present. `petId` and `orderId`
 * are JSON number literals digit for digit (docs/contract.md "Identifiers").
 * @throws Error when an `orderId` is not an int64 (a stored item the consumer did not write).
 */
export function inventoryChangeJson(changes: readonly InventoryChange[]): string {
  return JSON.stringify(changes.map(changeValue));
}

/** One InventoryChange as the value {@link inventoryChangeJson} serialises. */
function changeValue(change: InventoryChange) {
  const orderId = change.orderId === undefined ? undefined : toPetId(change.orderId);
  if (change.orderId !== undefined && orderId === undefined) {
    throw new Error(`change ${change.sequence} of petId ${change.petId}: orderId is not an int64`);
  }
  return {
    sequence: change.sequence,
    petId: JSON.rawJSON(change.petId),
    occurredAt: change.occurredAt,
    reason: change.reason,
    quantity: { from: change.quantity.from, to: change.quantity.to },
    status: { from: change.status.from, to: change.status.to },
    ...(orderId === undefined ? {} : { orderId: JSON.rawJSON(orderId) }),
    ...(change.keyId === undefined ? {} : { keyId: change.keyId }),
  };
}
