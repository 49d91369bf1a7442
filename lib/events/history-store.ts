/**
 * The inventory's change records in the history table (partition key `petId`, sort key `sequence`): written by
 * the change records' consumer, read by listInventoryHistory. docs/architecture.md "Data layout" and
 * "Change records".
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  NumberValue,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { PetStatus } from '../inventory/inventory-item.ts';
import type { ChangeReason } from '../inventory/last-change.ts';
import { type InventoryChange, withIdsAs } from './changes.ts';

/** The newest record of a pet: its `sequence` and the stream record it was made from (`streamSequence`). */
export interface NewestChange {
  sequence: number;
  /** The DynamoDB stream record's `SequenceNumber` (decimal digits; compare as BigInt). */
  streamSequence: string;
}

/** A history item as read by the project's document clients (numbers as NumberValue). */
interface StoredChange {
  petId: NumberValue;
  sequence: NumberValue;
  streamSequence: string;
  occurredAt: string;
  reason: ChangeReason;
  quantity: { from: NumberValue | null; to: NumberValue };
  status: { from: PetStatus | null; to: PetStatus };
  orderId?: NumberValue | string;
  keyId?: string;
}

/** The InventoryChange of a stored history item, members in the contract's order. */
function fromStoredChange(item: Record<string, unknown>): InventoryChange {
  const { petId, sequence, occurredAt, reason, quantity, status, orderId, keyId } =
    item as unknown as StoredChange;
  return {
    sequence: Number(sequence.toString()),
    petId: petId.toString(),
    occurredAt,
    reason,
    quantity: {
      from: quantity.from === null ? null : Number(quantity.from.toString()),
      to: Number(quantity.to.toString()),
    },
    status: { from: status.from, to: status.to },
    ...(orderId === undefined ? {} : { orderId: orderId.toString() }),
    ...(keyId === undefined ? {} : { keyId }),
  };
}

/** At most `limit` records of `petId`, newest first, below the sequence `before` when given: Query. */
async function queryNewestFirst(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
  limit: number,
  before?: number,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  // A Query page stops at 1 MB: continue until `limit` items or the partition's end.
  do {
    const page: QueryCommandOutput = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression:
          before === undefined ? 'petId = :petId' : 'petId = :petId AND #sequence < :before',
        ...(before === undefined ? {} : { ExpressionAttributeNames: { '#sequence': 'sequence' } }),
        ExpressionAttributeValues: {
          ':petId': NumberValue.from(petId),
          ...(before === undefined ? {} : { ':before': before }),
        },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit - items.length,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < limit);
  return items;
}

/** A pet's newest record, and its records made from the stream records from a given one on. */
export interface RecentChanges {
  /** The pet's newest record; undefined when it has none. */
  newest?: NewestChange;
  /** The records whose `streamSequence` is at least the one asked for, by `streamSequence`. */
  since: Map<string, InventoryChange>;
}

/**
 * The newest record of `petId` and its records made from stream record `streamSequence` on (compared as
 * BigInt): strongly consistent Queries newest first, `pageSize` records per page (the number of the pet's
 * records the caller expects, plus one), until a record older than `streamSequence` or the partition's start.
 * docs/architecture.md "Change records": "Write, then publish".
 */
export async function recentChanges(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
  streamSequence: string,
  pageSize: number,
): Promise<RecentChanges> {
  const oldest = BigInt(streamSequence);
  const since = new Map<string, InventoryChange>();
  let newest: NewestChange | undefined;
  let before: number | undefined;
  for (;;) {
    const items = await queryNewestFirst(client, tableName, petId, pageSize, before);
    for (const item of items) {
      const stored = item as unknown as StoredChange;
      const sequence = Number(stored.sequence.toString());
      newest ??= { sequence, streamSequence: stored.streamSequence };
      if (BigInt(stored.streamSequence) < oldest) return newest ? { newest, since } : { since };
      since.set(stored.streamSequence, fromStoredChange(item));
      before = sequence;
    }
    if (items.length < pageSize) return newest ? { newest, since } : { since };
  }
}

/**
 * Those of `petIds` without any record: no record of sequence 1, as a pet's records are numbered from 1 without
 * gaps and never deleted. Strongly consistent BatchGetItem, 100 keys a request, unprocessed keys asked again.
 * @throws any DynamoDB error.
 */
export async function withoutHistory(
  client: DynamoDBDocumentClient,
  tableName: string,
  petIds: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let from = 0; from < petIds.length; from += 100) {
    let keys = petIds
      .slice(from, from + 100)
      .map((petId) => ({ petId: NumberValue.from(petId), sequence: 1 }));
    while (keys.length > 0) {
      const request = { [tableName]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'petId' } };
      const answer = await client.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of answer.Responses?.[tableName] ?? []) found.add(String(item.petId));
      keys = (answer.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof keys;
    }
  }
  return new Set(petIds.filter((petId) => !found.has(petId)));
}

/**
 * Writes `change` made from the stream record `streamSequence` with one PutItem, only if the pet has no record
 * of that sequence yet (`attribute_not_exists(sequence)`).
 * @throws ConditionalCheckFailedException when the sequence is taken; any DynamoDB error.
 */
export async function putChange(
  client: DynamoDBDocumentClient,
  tableName: string,
  change: InventoryChange,
  streamSequence: string,
): Promise<void> {
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...withIdsAs(change, (id) => NumberValue.from(id)), streamSequence },
      ConditionExpression: 'attribute_not_exists(#sequence)',
      ExpressionAttributeNames: { '#sequence': 'sequence' },
    }),
  );
}

/**
 * Writes the first records (sequence 1) of pets {@link withoutHistory}, 25 to a BatchWriteItem, unprocessed items
 * sent again. No condition guards them: only the consumer writes a pet's records, one batch of the pet's stream
 * shard at a time, and it found the pet without records (docs/architecture.md "Change records").
 * @throws any DynamoDB error; some of the records may then be written.
 */
export async function putFirstChanges(
  client: DynamoDBDocumentClient,
  tableName: string,
  changes: readonly { change: InventoryChange; streamSequence: string }[],
): Promise<void> {
  for (let from = 0; from < changes.length; from += 25) {
    let requests = changes.slice(from, from + 25).map(({ change, streamSequence }) => ({
      PutRequest: { Item: { ...withIdsAs(change, (id) => NumberValue.from(id)), streamSequence } },
    }));
    while (requests.length > 0) {
      const answer = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (answer.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  }
}

/** One page of a pet's history, newest first: the records, and the cursor of the next page when more follow. */
export interface HistoryPage {
  items: InventoryChange[];
  /** The last record's `sequence` as decimal text: the next page continues below it. Absent on the last page. */
  next?: string;
}

/**
 * At most `limit` records of `petId`, newest first, below the sequence `cursor` (decimal text, exclusive; a
 * {@link HistoryPage.next}) when given: strongly consistent Queries on the pet's partition.
 */
export async function historyPage(
  client: DynamoDBDocumentClient,
  tableName: string,
  petId: string,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<HistoryPage> {
  // One more than asked tells whether a next page exists.
  const items = (
    await queryNewestFirst(
      client,
      tableName,
      petId,
      limit + 1,
      cursor === undefined ? undefined : Number(cursor),
    )
  ).map(fromStoredChange);
  const shown = items.slice(0, limit);
  const last = shown[shown.length - 1];
  return items.length > limit && last ? { items: shown, next: String(last.sequence) } : { items: shown };
}
