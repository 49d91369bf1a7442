/**
 * listInventory's `limit`, `cursor`, `status`, `lowStock` and `petIds`, and the cursor: docs/contract.md
 * "Inventory semantics".
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidRequest } from '../http/errors.ts';
import { singleQueryValue } from '../http/request-parameters.ts';
import { maxBatchKeys } from './entries-by-id.ts';
import { isPetStatus, type PetStatus, petStatuses } from './inventory-item.ts';
import { int64Rule, toPetId } from './pet-id.ts';

/** The largest `limit` (docs/contract.md "Inventory semantics"). */
export const maxLimit = 1000;

/** A parsed listInventory request: no `limit` means the whole list, streamed. */
export interface ListQuery {
  limit?: number;
  /** The petId the previous page ended with. */
  after?: string;
  status?: PetStatus;
  /** Only low entries (`quantity <= reorderPoint`). */
  lowStock?: true;
}

/** A parsed listInventory request: a list ({@link ListQuery}) or the entries of up to 100 ids. */
export type InventoryQuery = ListQuery | { petIds: string[] };

// A cursor is `<payload>.<mac>` in base64url: the JSON `{after, status}` and the first 16 bytes of its
// HMAC-SHA-256. The MAC guards integrity, not a secret: a cursor names only a position in a list the same key
// may read whole, so an edited, cut or foreign cursor is a clear 400 rather than an arbitrary position.
const macKey = 'pet-store-inventory listInventory cursor v1';
const macBytes = 16;

function mac(payload: string): Buffer {
  return createHmac('sha256', macKey).update(payload).digest().subarray(0, macBytes);
}

/** The filters a cursor is issued for: a page continues only the list it began. */
type CursorFilter = Pick<ListQuery, 'status' | 'lowStock'>;

/** The cursor of the page that follows `after` under the filters `filter`. */
export function encodeCursor(after: string, { status, lowStock }: CursorFilter): string {
  const filters = { after, status: status ?? null, ...(lowStock ? { lowStock } : {}) };
  const payload = Buffer.from(JSON.stringify(filters)).toString('base64url');
  return `${payload}.${mac(payload).toString('base64url')}`;
}

const badCursor = "cursor is not valid: pass the cursor of the previous page's Link header unchanged";

/**
 * The position a cursor names.
 * @throws HttpError 400 when it was not made by {@link encodeCursor}, or was made for other filters
 */
function decodeCursor(cursor: string, { status, lowStock }: CursorFilter): string {
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined || !/^[\w-]+$/.test(payload + signature)) {
    throw invalidRequest(badCursor);
  }
  const given = Buffer.from(signature, 'base64url');
  // Re-encoded and compared: base64 text has spare bits, so two texts can decode to the same bytes.
  if (given.length !== macBytes || given.toString('base64url') !== signature) throw invalidRequest(badCursor);
  if (!timingSafeEqual(given, mac(payload))) throw invalidRequest(badCursor);
  let decoded: { after?: unknown; status?: unknown; lowStock?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalidRequest(badCursor);
  }
  if ((decoded?.status ?? undefined) !== status) {
    throw invalidRequest('cursor was issued for another status filter: keep the status of the first page');
  }
  if ((decoded?.lowStock ?? undefined) !== lowStock) {
    throw invalidRequest(
      'cursor was issued for another lowStock filter: keep the lowStock of the first page',
    );
  }
  const after = typeof decoded.after === 'string' ? toPetId(decoded.after) : undefined;
  if (after === undefined) throw invalidRequest(badCursor);
  return after;
}

/**
 * The ids of `petIds`: 1 to {@link maxBatchKeys} distinct canonical int64, comma-separated.
 * @throws HttpError 400 `invalid_request` otherwise, naming the first bad or repeated id
 */
function parsePetIds(text: string): string[] {
  const parts = text.split(',');
  if (parts.length > maxBatchKeys) {
    throw invalidRequest(`petIds must name 1 to ${maxBatchKeys} ids; it names ${parts.length}`);
  }
  const petIds = new Set<string>();
  for (const part of parts) {
    const petId = toPetId(part);
    if (petId === undefined) {
      throw invalidRequest(`${int64Rule('each id of petIds')}, written in decimal and separated by commas`);
    }
    if (petIds.has(petId)) throw invalidRequest(`petIds names ${petId} twice`);
    petIds.add(petId);
  }
  return [...petIds];
}

/**
 * The parsed query: each parameter at most once; `petIds` alone.
 * @throws HttpError 400 `invalid_request` for a repeated parameter, a `limit` that is not a canonical integer
 *   from 1 to {@link maxLimit}, a `status` that is not a PetStatus, a `lowStock` other than `true`, a bad cursor,
 *   or `petIds` that are not 1 to 100 distinct ids or come with another parameter
 */
export function parseListQuery(
  multiValue: Readonly<Record<string, readonly string[] | undefined>> | null,
): InventoryQuery {
  const single = (name: string) => singleQueryValue(multiValue, name);
  const petIdsText = single('petIds');
  if (petIdsText !== undefined) {
    const others = Object.keys(multiValue ?? {}).filter((name) => name !== 'petIds');
    if (others.length > 0) throw invalidRequest('petIds cannot be combined with other query parameters');
    return { petIds: parsePetIds(petIdsText) };
  }
  const limitText = single('limit');
  const statusText = single('status');
  const lowStockText = single('lowStock');
  const cursor = single('cursor');
  const query: ListQuery = {};
  if (limitText !== undefined) {
    const limit = /^[1-9][0-9]{0,3}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > maxLimit) throw invalidRequest(`limit must be an integer from 1 to ${maxLimit}`);
    query.limit = limit;
  }
  if (statusText !== undefined) {
    if (!isPetStatus(statusText)) throw invalidRequest(`status must be one of ${petStatuses.join(', ')}`);
    query.status = statusText;
  }
  if (lowStockText !== undefined) {
    if (lowStockText !== 'true') throw invalidRequest('lowStock must be true');
    query.lowStock = true;
  }
  if (cursor !== undefined) query.after = decodeCursor(cursor, query);
  return query;
}
