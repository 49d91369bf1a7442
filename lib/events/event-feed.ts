/**
 * Reads the events feed (listEvents): a page of events merged from the logs, oldest first, after a position of
 * every log. docs/architecture.md "The events feed", docs/contract.md "History and events".
 */
import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { exactNumbers } from './change-json.ts';
import type { EventType } from './changes.ts';
import { keyItem, lastPosition, logCount, logKey, logsOf, markerKey, oldestKept } from './event-logs.ts';

/** An event of the feed as stored: its id, type, timestamp and the exact JSON text of its data. */
export interface FeedEvent {
  id: string;
  type: EventType;
  timestamp: string;
  /** The change record's exact JSON text (lib/events/change-json.ts `changeJson`). */
  data: string;
}

/** The {@link FeedEvent} of a stored event item. */
function feedEventOf(item: Record<string, unknown>): FeedEvent {
  return {
    id: item.id as string,
    type: item.type as EventType,
    timestamp: item.timestamp as string,
    data: item.data as string,
  };
}

/** One page: its events, oldest first, and the position of every log after them (the next page's start). */
export interface FeedPage {
  events: FeedEvent[];
  next: number[];
}

/** Items a log's Query reads at most at a time. */
const queryItems = 100;

/** A log's read state during the merge: its unread items, and where its next Query starts and ends. */
interface LogReader {
  log: number;
  items: { position: number; event: FeedEvent }[];
  /** The last position read from the log (the next Query reads after it). */
  after: number;
  /** The log's last position when the page began (its head): the Queries read up to it. */
  until: number;
  /** Whether the last Query may have left items behind (a full page or a LastEvaluatedKey). */
  more: boolean;
}

/**
 * Reads the next items of `reader`'s log after `reader.after` and up to `reader.until`: one strongly consistent
 * Query (none when nothing is left).
 */
async function refill(client: DynamoDBDocumentClient, tableName: string, reader: LogReader, limit: number) {
  if (reader.after >= reader.until) {
    reader.items = [];
    reader.more = false;
    return;
  }
  const page: QueryCommandOutput = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: '#log = :log AND #position BETWEEN :from AND :until',
      ExpressionAttributeNames: {
        '#log': 'log',
        '#position': 'position',
        '#type': 'type',
        '#timestamp': 'timestamp',
        '#data': 'data',
      },
      ExpressionAttributeValues: {
        ':log': logKey(reader.log),
        ':from': reader.after + 1,
        ':until': reader.until,
      },
      ProjectionExpression: '#position, id, #type, #timestamp, #data',
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  const items = (page.Items ?? []).map((item) => ({
    position: Number(String(item.position)),
    event: feedEventOf(item),
  }));
  reader.items = items;
  reader.more = page.LastEvaluatedKey !== undefined || items.length === limit;
}

/**
 * The merge order: the position, then the log (positions are the feed's own since it has one head; events
 * appended when each log had its head may share one).
 */
function before(a: LogReader, b: LogReader): boolean {
  const [x, y] = [a.items[0]?.position ?? 0, b.items[0]?.position ?? 0];
  return x !== y ? x < y : a.log < b.log;
}

/**
 * At most `limit` events of `types`, oldest first, from the logs after the positions `after` (one per log,
 * {@link logCount}), skipping events older than 30 days at `nowMs` (DynamoDB deletes expired items late):
 * the feed's head read first, then strongly consistent Queries of each log up to it, merged by (position,
 * log). `next` holds, for each log an
 * event of the page came from, the position of its last one; the others' positions as given (so a page without
 * events continues where it started).
 */
export async function feedPage(
  client: DynamoDBDocumentClient,
  tableName: string,
  {
    limit,
    types,
    after,
    nowMs = Date.now(),
  }: { limit: number; types: readonly EventType[]; after: readonly number[]; nowMs?: number },
): Promise<FeedPage> {
  const next = [...after];
  const oldest = oldestKept(nowMs) - 1;
  const readers: LogReader[] = logsOf(types).map((log) => ({
    log,
    items: [],
    after: Math.max(after[log] ?? 0, oldest),
    until: 0,
    more: true,
  }));
  const read = (reader: LogReader) => refill(client, tableName, reader, Math.min(limit, queryItems));
  // The head first: a GetItem is serializable with the appends' transactions, a Query only read-committed, so
  // positions up to the head read belong to appends that have completed, and any later one is above it.
  const head = (await lastPosition(client, tableName)) ?? 0;
  const start = async (reader: LogReader) => {
    reader.until = head;
    await read(reader);
  };
  // Every first read settled before the answer or the error: none outlives the invocation.
  const started = await Promise.allSettled(readers.map(start));
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  const events: FeedEvent[] = [];
  while (events.length < limit) {
    let least: LogReader | undefined;
    for (const reader of readers) {
      if (reader.items.length > 0 && (!least || before(reader, least))) least = reader;
    }
    if (!least) break;
    const taken = least.items.shift() as { position: number; event: FeedEvent };
    events.push(taken.event);
    least.after = taken.position;
    next[least.log] = taken.position;
    if (least.items.length === 0 && least.more && events.length < limit) await read(least);
  }
  return { events, next };
}

/** Where an event id places a reader: its log and position. */
export interface EventPlace {
  log: number;
  position: number;
}

/** The log and position of the event `eventId` (its id marker), or undefined when there is none kept at `nowMs`. */
export async function placeOf(
  client: DynamoDBDocumentClient,
  tableName: string,
  eventId: string,
  nowMs: number = Date.now(),
): Promise<EventPlace | undefined> {
  const Item = await keyItem(client, tableName, markerKey(eventId));
  if (!Item) return undefined;
  const place = { log: Number(String(Item.eventLog)), position: Number(String(Item.eventPosition)) };
  return place.position >= oldestKept(nowMs) ? place : undefined;
}

/**
 * The event `eventId` as the feed keeps it, or undefined when there is none kept at `nowMs` (never appended, or
 * past 30 days): its id marker's place ({@link placeOf}), then the event's item there, each one strongly
 * consistent GetItem (redeliverWebhook: docs/architecture.md "Redelivery").
 */
export async function eventById(
  client: DynamoDBDocumentClient,
  tableName: string,
  eventId: string,
  nowMs: number = Date.now(),
): Promise<FeedEvent | undefined> {
  const place = await placeOf(client, tableName, eventId, nowMs);
  if (!place) return undefined;
  const Item = await keyItem(client, tableName, logKey(place.log), place.position);
  return Item && feedEventOf(Item);
}

/**
 * The positions after the event at `place` in the feed's order (position, log): its position in its own log
 * and the logs before it, the one before in the logs after it. Every event of a lower position committed before
 * it (one head), so this is exactly the event's place, whatever was appended meanwhile.
 */
export function positionsAfter(place: EventPlace): number[] {
  return Array.from({ length: logCount }, (_, log) =>
    log <= place.log ? place.position : place.position - 1,
  );
}

/** The JSON text of a page's events: `[{"id","type","timestamp","data"}...]`, each data its exact stored text. */
export function feedJson(events: readonly FeedEvent[]): string {
  return JSON.stringify(
    events.map(({ id, type, timestamp, data }) => ({
      id,
      type,
      timestamp,
      data: JSON.parse(data, exactNumbers),
    })),
  );
}
