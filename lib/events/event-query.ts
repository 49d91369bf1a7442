/**
 * listEvents' query parameters `type` and `after` (an event id or the opaque cursor of a `Link`):
 * docs/contract.md "History and events", docs/architecture.md "The events feed".
 */
import { invalidRequest } from '../http/errors.ts';
import { toPetId } from '../inventory/pet-id.ts';
import { maxQuantity } from '../inventory/quantity.ts';
import { orderStatuses } from '../orders/order.ts';
import { type EventType, eventTypes } from './changes.ts';
import { logCount } from './event-logs.ts';

/**
 * The event types a `type` parameter keeps: every type when absent.
 * @throws HttpError 400 `invalid_request` unless it is one of {@link eventTypes}.
 */
export function parseEventType(text: string | undefined): readonly EventType[] {
  if (text === undefined) return eventTypes;
  const type = eventTypes.find((candidate) => candidate === text);
  if (!type) throw invalidRequest(`type must be one of ${eventTypes.join(', ')}`);
  return [type];
}

/** The cursor of the positions `positions` (one per log): base64url of their base-36 digits joined by `.`. */
export function eventsCursor(positions: readonly number[]): string {
  return Buffer.from(positions.map((position) => position.toString(36)).join('.')).toString('base64url');
}

/** Longest cursor {@link eventsCursor} writes: a position of at most 11 base-36 digits per log, with separators. */
const maxCursorLength = Math.ceil(((12 * logCount - 1) * 4) / 3);

/**
 * Logs of the cursors written before `inventory.low_stock` existed: their positions are those of the first
 * logs, and the later logs' events all follow them (position 0).
 */
const earlierLogCount = 16;

/** The positions of a cursor, or undefined when {@link eventsCursor} did not write it. */
function cursorPositions(text: string): number[] | undefined {
  if (text.length > maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const parts = Buffer.from(text, 'base64url').toString('latin1').split('.');
  if (
    (parts.length !== logCount && parts.length !== earlierLogCount) ||
    !parts.every((part) => /^(0|[1-9a-z][0-9a-z]{0,10})$/.test(part))
  ) {
    return undefined;
  }
  const positions = parts.map((part) => Number.parseInt(part, 36));
  if (!positions.every(Number.isSafeInteger) || eventsCursor(positions) !== text) return undefined;
  return [...positions, ...Array<number>(logCount - positions.length).fill(0)];
}

/** Whether `text` is a change record's sequence (from 1, a safe integer). */
const isSequence = (text: string | undefined) =>
  text !== undefined && /^[1-9][0-9]{0,15}$/.test(text) && Number.isSafeInteger(Number(text));

/** Longest event id accepted, in characters (the longest the service writes, a low-stock id, has 68). */
const maxEventIdLength = 80;

/**
 * Whether `id` is an event id the service can write (lib/events/changes.ts `changeEventId`): listEvents' `after`,
 * redeliverWebhook's `eventId`.
 */
export function isEventId(id: string): boolean {
  if (id.length > maxEventIdLength) return false;
  const [type, key, last, point, ...rest] = id.split('.');
  if (rest.length > 0 || key === undefined || last === undefined || toPetId(key) !== key) return false;
  if (type === 'inventory_low_stock') {
    return (
      isSequence(last) &&
      point !== undefined &&
      /^(0|[1-9][0-9]{0,9})$/.test(point) &&
      Number(point) <= maxQuantity
    );
  }
  if (point !== undefined) return false;
  if (type === 'inventory') return isSequence(last);
  return type === 'order' && (orderStatuses as readonly string[]).includes(last);
}

/** Where `after` starts a page: after the positions of a cursor, or after the event of an id. */
export type After = { positions: number[] } | { eventId: string };

/** The message of a bad `after`. */
const afterRule =
  'after must be an event id (inventory.<petId>.<sequence>, order.<orderId>.<status> or inventory_low_stock.<petId>.<sequence>.<reorderPoint>) or the cursor of a Link header';

/**
 * The start an `after` parameter names, or undefined when absent. An event id holds dots; a cursor never does.
 * @throws HttpError 400 `invalid_request` when it is neither an event id the service writes nor a cursor it wrote.
 */
export function parseAfter(text: string | undefined): After | undefined {
  if (text === undefined) return undefined;
  if (text.includes('.')) {
    if (isEventId(text)) return { eventId: text };
    throw invalidRequest(afterRule);
  }
  const positions = cursorPositions(text);
  if (!positions) throw invalidRequest(afterRule);
  return { positions };
}
