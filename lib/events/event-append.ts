/**
 * Appends change events to the events feed's logs, each exactly once (docs/architecture.md "The events feed"):
 * written by the change records' consumer after the history and before the bus.
 */
import { randomInt } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { changeJson } from './change-json.ts';
import { type ChangeEvent, changeEventId, eventTimestamp } from './changes.ts';
import {
  expiresAtOf,
  headKey,
  headPosition,
  keyItem,
  lastPosition,
  logKey,
  logOf,
  markerKey,
  positionsPerMs,
} from './event-logs.ts';

/** One item of a TransactWriteItems, as the document client takes it. */
type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Events per transaction: a head update and two puts per event stay within DynamoDB's 100 items. */
export const eventsPerAppend = 49;

/**
 * Milliseconds a batch's appends may keep meeting other consumers' on the head before the batch fails (and is
 * retried by the stream mapping): a third of recordChanges' timeout.
 */
export const appendBudgetMs = 20_000;

/** The longest pause, in milliseconds, before another attempt after the head was taken. */
const maxPauseMs = 10;

/** The events of `events` whose id marker exists (appended by an earlier attempt): strongly consistent reads. */
async function appendedIds(
  client: DynamoDBDocumentClient,
  tableName: string,
  events: readonly ChangeEvent[],
) {
  const found = await Promise.all(
    events.map(async (event) => {
      const id = changeEventId(event);
      const Item = await keyItem(client, tableName, markerKey(id));
      return Item ? id : undefined;
    }),
  );
  return new Set(found.filter((id) => id !== undefined));
}

/**
 * One TransactWriteItems appending `events` (at most {@link eventsPerAppend}, of any logs) after position
 * `last`: the feed's head `last` moved on, conditioned on it being `last` still; each event in its log at its
 * position (max(previous + 1, now in ms x 1000)) with its id, type, timestamp, exact JSON data and expiry; each
 * id marker put only if absent.
 * @returns the feed's new last position.
 * @throws TransactionCanceledException when another append moved the head first (its reason carries the head,
 *   `ALL_OLD`) or a marker exists.
 */
async function appendOnce(
  client: DynamoDBDocumentClient,
  tableName: string,
  last: number | undefined,
  events: readonly ChangeEvent[],
  nowMs: number,
): Promise<number> {
  let position = last ?? 0;
  const puts = events.flatMap((event): TransactWriteItem[] => {
    position = Math.max(position + 1, nowMs * positionsPerMs);
    const id = changeEventId(event);
    const log = logOf(event);
    const expiresAt = expiresAtOf(position);
    return [
      {
        Put: {
          TableName: tableName,
          Item: {
            log: logKey(log),
            position,
            id,
            type: event.type,
            timestamp: eventTimestamp(event),
            data: changeJson(event),
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(#position)',
          ExpressionAttributeNames: { '#position': 'position' },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: {
            log: markerKey(id),
            position: headPosition,
            eventLog: log,
            eventPosition: position,
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(#log)',
          ExpressionAttributeNames: { '#log': 'log' },
        },
      },
    ];
  });
  await client.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName,
            Key: { log: headKey, position: headPosition },
            UpdateExpression: 'SET #last = :position',
            ConditionExpression: last === undefined ? 'attribute_not_exists(#last)' : '#last = :last',
            ExpressionAttributeNames: { '#last': 'last' },
            ExpressionAttributeValues: {
              ':position': position,
              ...(last === undefined ? {} : { ':last': last }),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        ...puts,
      ],
    }),
  );
  return position;
}

/** The head's `last` in a refusal's old item (`ALL_OLD`, DynamoDB's attribute values), or undefined. */
function refusedLast(item: Record<string, unknown> | undefined): number | undefined {
  const last = item?.last as { N?: string } | undefined;
  return last?.N === undefined ? undefined : Number(last.N);
}

/**
 * Appends each of `events` to its log once (lib/events/event-logs.ts `logOf`), in their order (a pet's in
 * `sequence` order), in transactions of {@link eventsPerAppend}, each after the feed's last position: read once,
 * then taken from a refusal of the head (`ALL_OLD`: another consumer appended first), retried after a short
 * jittered pause; a refusal of a marker (an earlier attempt of the batch appended some) drops the events already
 * appended. One head for every log: positions commit in their order across the whole feed, which is what makes
 * an event id a resumable position (docs/architecture.md "The events feed").
 * @throws Error when the head stayed taken for {@link appendBudgetMs}; any other DynamoDB error.
 */
export async function appendEvents(
  client: DynamoDBDocumentClient,
  tableName: string,
  events: readonly ChangeEvent[],
  now: () => number = Date.now,
): Promise<void> {
  if (events.length === 0) return;
  const deadline = Date.now() + appendBudgetMs;
  let last = await lastPosition(client, tableName);
  for (let start = 0; start < events.length; start += eventsPerAppend) {
    let pending = events.slice(start, start + eventsPerAppend);
    while (pending.length > 0) {
      try {
        last = await appendOnce(client, tableName, last, pending, now());
        break;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const [head, ...items] = error.CancellationReasons ?? [];
        const markerRefused = items.some(
          (reason, index) => index % 2 === 1 && reason?.Code === 'ConditionalCheckFailed',
        );
        if (markerRefused) {
          const appended = await appendedIds(client, tableName, pending);
          pending = pending.filter((event) => !appended.has(changeEventId(event)));
        }
        last =
          (head?.Code === 'ConditionalCheckFailed' ? refusedLast(head.Item) : undefined) ??
          (await lastPosition(client, tableName));
        if (Date.now() > deadline) {
          throw new Error(`events feed: the head stayed taken for ${appendBudgetMs} ms`);
        }
        // A pause that does not grow with the attempts: a growing one would leave the head to its latest appenders.
        if (!markerRefused) await setTimeout(randomInt(0, maxPauseMs + 1));
      }
    }
  }
}
