/** Raw table reads and writes, independent of the code under test (docs/contract.md "Inventory semantics"). */
import { createHash } from 'node:crypto';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  paginateScan,
} from '@aws-sdk/client-dynamodb';
import { expect } from 'vitest';
import { listShardOf } from '#lib/inventory/list-shard.ts';

/** A stored item, attribute by attribute, as DynamoDB returns it. */
export type RawItem = Record<string, AttributeValue>;

/**
 * The last change an entry records (docs/architecture.md "Data layout"): why, by which key, for which order,
 * when (`changedAt`, RFC 3339 UTC with milliseconds: a value, or a matcher such as {@link changeTimeWithin}).
 */
export interface RecordedChange {
  reason: string;
  keyId?: string;
  orderId?: string;
  changedAt?: string;
}

/** How the writers record `changedAt`: RFC 3339, UTC, milliseconds (lib/inventory/last-change.ts). */
export const changeTimeFormat = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A span of time, both ends included: epoch milliseconds of this machine's clock. */
export interface TimeWindow {
  from: number;
  to: number;
}

/** Runs `write` and returns its result with the {@link TimeWindow} from its start to its end. */
export async function timed<T>(write: () => Promise<T>): Promise<{ result: T; window: TimeWindow }> {
  const from = Date.now();
  const result = await write();
  return { result, window: { from, to: Date.now() } };
}

/**
 * A matcher for a `changedAt` written within `window`: {@link changeTimeFormat} and, read as a time, from
 * `window.from` to `window.to` (milliseconds, both included; the writer's clock is this machine's).
 */
export function changeTimeWithin(window: TimeWindow): string {
  return expect.toSatisfy(
    (value: unknown) =>
      typeof value === 'string' &&
      changeTimeFormat.test(value) &&
      Date.parse(value) >= window.from &&
      Date.parse(value) <= window.to,
    `an RFC 3339 UTC millisecond time from ${new Date(window.from).toISOString()} to ${new Date(window.to).toISOString()}`,
  );
}

/**
 * An inventory item as the service stores it: `petId` and `quantity` Numbers, `status` a String, the list
 * shard the service derives from petId (`listShard`, Number) and, once a writer changed it, that last change
 * (`reason`, `keyId` Strings, `orderId` Number, `changedAt` String when given).
 */
export function inventoryRecord(
  petId: string,
  quantity: number,
  status: string,
  change?: RecordedChange,
): RawItem {
  return {
    ...legacyInventoryRecord(petId, quantity, status),
    listShard: { N: String(listShardOf(petId)) },
    ...(change && { reason: { S: change.reason } }),
    ...(change?.keyId && { keyId: { S: change.keyId } }),
    ...(change?.orderId && { orderId: { N: change.orderId } }),
    ...(change?.changedAt && { changedAt: { S: change.changedAt } }),
  };
}

/**
 * An inventory item as the import tool (and the local seeding) writes it: {@link inventoryRecord} with the
 * change `import` at any time of the {@link changeTimeFormat} (for assertions only).
 */
export function importedRecord(petId: string, quantity: number, status: string): RawItem {
  return inventoryRecord(petId, quantity, status, {
    reason: 'import',
    changedAt: expect.stringMatching(changeTimeFormat),
  });
}

/** `count` petIds from `from` up whose list shard is `shard`: entries that all land in one index partition. */
export function petIdsInShard(shard: number, count: number, from = 1): string[] {
  const ids: string[] = [];
  for (let id = from; ids.length < count; id++) if (listShardOf(String(id)) === shard) ids.push(String(id));
  return ids;
}

/** An inventory item as the service stored it before the list index: without `listShard`. */
export function legacyInventoryRecord(petId: string, quantity: number, status: string): RawItem {
  return { petId: { N: petId }, quantity: { N: String(quantity) }, status: { S: status } };
}

/**
 * An order item as the service stores it, with what getOrderById and listOrders read: `orderId`, `petId` and
 * `quantity` Numbers, `status`, `complete` (true once `delivered`) and the newest-first index's `listPartition`.
 */
export function orderRecord(orderId: string, petId: string, quantity: number, status = 'placed'): RawItem {
  return {
    orderId: { N: orderId },
    petId: { N: petId },
    quantity: { N: String(quantity) },
    status: { S: status },
    complete: { BOOL: status === 'delivered' },
    listPartition: { S: 'orders' },
  };
}

/** How a kept webhook failure ended: its attempts, the last one's status (when it had a response) and error. */
export interface KeptFailure {
  attempts: number;
  lastStatus?: number;
  lastError: string;
  failedAt: string;
}

/**
 * A webhook delivery kept as a failure, as the delivery stores it: the event `eventId` of `type` at `timestamp`
 * with the record's exact JSON `data`, for the endpoint `endpointId`.
 */
export function failureRecord(
  endpointId: string,
  eventId: string,
  [type, timestamp, data]: [string, string, string],
  { attempts, lastStatus, lastError, failedAt }: KeptFailure,
): RawItem {
  return {
    subscriptionId: { S: endpointId },
    eventId: { S: eventId },
    type: { S: type },
    timestamp: { S: timestamp },
    data: { S: data },
    attempts: { N: String(attempts) },
    ...(lastStatus === undefined ? {} : { lastStatus: { N: String(lastStatus) } }),
    lastError: { S: lastError },
    failedAt: { S: failedAt },
  };
}

/** Writes `items` (any attributes) into `table` with raw BatchWriteItem requests of 25. */
export async function putItems(client: DynamoDBClient, table: string, items: readonly RawItem[]) {
  for (let start = 0; start < items.length; start += 25) {
    const requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed items');
  }
}

/** Deletes every item of the inventory table `table` (partition key `petId`) with raw BatchWriteItem requests. */
export async function clearInventory(client: DynamoDBClient, table: string): Promise<void> {
  const items = await scanTable(client, table);
  for (let start = 0; start < items.length; start += 25) {
    const requests = items
      .slice(start, start + 25)
      .map((item) => ({ DeleteRequest: { Key: { petId: item.petId as AttributeValue } } }));
    const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed items');
  }
}

/** Writes one item into `table` with a raw PutItem. */
export async function putItem(client: DynamoDBClient, table: string, item: RawItem): Promise<void> {
  await client.send(new PutItemCommand({ TableName: table, Item: item }));
}

/** Numeric order of two decimal integer strings, computed with BigInt. */
function byNumber(a: string | undefined, b: string | undefined): number {
  const x = BigInt(a ?? '0');
  const y = BigInt(b ?? '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Every item of `table` exactly as stored, read with a raw paginated Scan; inventory items sorted by petId
 * (numerically), key items by digest.
 */
export async function scanTable(client: DynamoDBClient, table: string): Promise<RawItem[]> {
  const items: RawItem[] = [];
  for await (const page of paginateScan({ client }, { TableName: table })) items.push(...(page.Items ?? []));
  return items.sort((a, b) =>
    a.petId ? byNumber(a.petId.N, b.petId?.N) : String(a.keyDigest?.S).localeCompare(String(b.keyDigest?.S)),
  );
}

/** The names of every table at the client's endpoint. */
export async function tableNames(client: DynamoDBClient): Promise<string[]> {
  const { TableNames } = await client.send(new ListTablesCommand({}));
  return TableNames ?? [];
}

/** SHA-256 of `apiKey` in lowercase hex, computed here independently of lib/auth. */
export function sha256Hex(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
