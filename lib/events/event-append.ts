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
  headPosition,
  keyItem,
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
 * Milliseconds a log's appends may keep meeting other consumers' on its head before the batch fails (and is
 * retried by the stream mapping): a third of recordChanges' timeout.
 */
export const appendBudgetMs = 20_000;

/** The longest pause, in milliseconds, before another attempt after the head was taken. */
const maxPauseMs = 10;

/** A position read back as the document clients read numbers (NumberValue) or as a number. */
const positionNumber = (value: unknown) => Number(String(value));

/** The last position of `log` (its head item's `last`; undefined for a log never appended to): strongly consistent. */
async function lastPosition(client: DynamoDBDocumentClient, tableName: string, log: number) {
  const Item = await keyItem(client, tableName, logKey(log));
  return Item?.last === undefined ? undefined : positionNumber(Item.last);
}

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
 * One TransactWriteItems appending `events` (all of one log, at most {@link eventsPerAppend}) after position
 * `last`: the head's `last` moved on, conditioned on it being `last` still; each event at its position
 * (max(previous + 1, now in ms x 1000)) with its id, type, timestamp, exact JSON data and expiry; each id
 * marker put only if absent.
 * @returns the log's new last position.
 * @throws TransactionCanceledException when another append moved the head first (its reason carries the head,
 *   `ALL_OLD`) or a marker exists.
 */
async function appendOnce(
  client: DynamoDBDocumentClient,
  tableName: string,
  log: number,
  last: number | undefined,
  events: readonly ChangeEvent[],
  nowMs: number,
): Promise<number> {
  let position = last ?? 0;
  const puts = events.flatMap((event): TransactWriteItem[] => {
    position = Math.max(position + 1, nowMs * positionsPerMs);
    const id = changeEventId(event);
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
            Key: { log: logKey(log), position: headPosition },
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
 * Appends `events` (all of log `log`, in their order) in transactions of {@link eventsPerAppend}, each after
 * the head's last position: read once, then taken from a refusal of the head (`ALL_OLD`: another consumer
 * appended first), which is retried after a short jittered pause; a refusal of a marker (an earlier attempt of
 * the batch appended some) drops the events already appended.
 * @throws Error when the log's head stayed taken for {@link appendBudgetMs}; any other DynamoDB error.
 */
async function appendToLog(
  client: DynamoDBDocumentClient,
  tableName: string,
  log: number,
  events: readonly ChangeEvent[],
  now: () => number,
): Promise<void> {
  const deadline = Date.now() + appendBudgetMs;
  let last = await lastPosition(client, tableName, log);
  for (let start = 0; start < events.length; start += eventsPerAppend) {
    let pending = events.slice(start, start + eventsPerAppend);
    while (pending.length > 0) {
      try {
        last = await appendOnce(client, tableName, log, last, pending, now());
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
          (await lastPosition(client, tableName, log));
        if (Date.now() > deadline) {
          throw new Error(`events feed: the head of log ${log} stayed taken for ${appendBudgetMs} ms`);
        }
        // A pause that does not grow with the attempts: a growing one would leave a log to its latest appenders.
        if (!markerRefused) await setTimeout(randomInt(0, maxPauseMs + 1));
      }
    }
  }
}

/**
 * Appends each of `events` to its log once (lib/events/event-logs.ts `logOf`), each log's in their order and
 * the logs in parallel; an event whose id marker exists is not appended again (a retried batch).
 * docs/architecture.md "The events feed".
 * @throws the first failure, after every log's appends under way have settled.
 */
export async function appendEvents(
  client: DynamoDBDocumentClient,
  tableName: string,
  events: readonly ChangeEvent[],
  now: () => number = Date.now,
): Promise<void> {
  const byLog = new Map<number, ChangeEvent[]>();
  for (const event of events) {
    const log = logOf(event);
    byLog.set(log, [...(byLog.get(log) ?? []), event]);
  }
  const outcomes = await Promise.allSettled(
    [...byLog].map(([log, logEvents]) => appendToLog(client, tableName, log, logEvents, now)),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}
