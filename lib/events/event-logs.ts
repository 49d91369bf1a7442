/**
 * The logs of the events feed (listEvents): which log an event goes to, how positions encode time, how long
 * events are kept, and the keys of the feed's items. docs/architecture.md "The events feed".
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { fnv1a32 } from '../fnv1a.ts';
import { type ChangeEvent, type EventType, eventTypes } from './changes.ts';

/** Logs per event type: each its own partition, so that appends and reads spread over 16 partition keys. */
export const logsPerType = 8;

/** Every log, numbered from 0: each type's logs in the order of {@link eventTypes}. */
export const logCount = eventTypes.length * logsPerType;

/** Positions per millisecond: a position is its append's epoch milliseconds x 1000, or the feed's last + 1. */
export const positionsPerMs = 1000;

/** How long the feed keeps an event: 30 days, in milliseconds (docs/contract.md "History and events"). */
export const retentionMs = 30 * 24 * 60 * 60 * 1000;

/** The position of the head item and of id markers (events have positions of epoch milliseconds x 1000 and above). */
export const headPosition = 0;

/**
 * The partition key of the feed's head: `last`, the last position appended to any log. One head for every log,
 * so that positions commit in their order across the feed (docs/architecture.md "The events feed").
 */
export const headKey = 'head';

/** The log of `event`: its type's logs, picked by FNV-1a of the petId (inventory) or orderId (orders). */
export function logOf(event: ChangeEvent): number {
  const key = event.type === 'order.changed' ? event.data.orderId : event.data.petId;
  return eventTypes.indexOf(event.type) * logsPerType + (fnv1a32(key) % logsPerType);
}

/** The logs of `types`, ascending. */
export function logsOf(types: readonly EventType[]): number[] {
  return eventTypes.flatMap((type, typeIndex) =>
    types.includes(type) ? Array.from({ length: logsPerType }, (_, n) => typeIndex * logsPerType + n) : [],
  );
}

/** The partition key (`log` attribute) of log `log`'s events: `<type>#<n>`, e.g. `inventory.changed#3`. */
export function logKey(log: number): string {
  return `${eventTypes[Math.floor(log / logsPerType)]}#${log % logsPerType}`;
}

/** The partition key of the id marker of the event `eventId`. */
export function markerKey(eventId: string): string {
  return `id#${eventId}`;
}

/** The epoch milliseconds a position was appended at (its millisecond in the feed's order). */
export function millisecondOf(position: number): number {
  return Math.floor(position / positionsPerMs);
}

/** The lowest position of an event still kept at `nowMs`: appended less than 30 days before. */
export function oldestKept(nowMs: number): number {
  return (nowMs - retentionMs + 1) * positionsPerMs;
}

/** The time to live (`expiresAt`, epoch seconds) of an event appended at `position`: 30 days after it. */
export function expiresAtOf(position: number): number {
  return Math.ceil((millisecondOf(position) + retentionMs) / 1000);
}

/**
 * The item at `position` (default 0) under the partition key `key` (the feed's head: {@link headKey}; an id's
 * marker: {@link markerKey}; an event: {@link logKey} and its position), read strongly consistent; undefined
 * when there is none.
 */
export async function keyItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: string,
  position: number = headPosition,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: { log: key, position }, ConsistentRead: true }),
  );
  return Item;
}

/**
 * The feed's last position (the head item's `last`, {@link headKey}), undefined before the first append: one
 * strongly consistent GetItem.
 */
export async function lastPosition(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<number | undefined> {
  const Item = await keyItem(client, tableName, headKey);
  return Item?.last === undefined ? undefined : Number(String(Item.last));
}
