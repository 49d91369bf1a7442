/**
 * The webhook attempts table (docs/contract.md "History and events": what an endpoint's owner sees): one item
 * per delivery attempt, written by the delivery function once the attempt's outcome is known, under the
 * endpoint's id (`endpointId`) at a time-ordered `attemptId`, expiring after 30 days (`expiresAt`); read newest
 * first by listWebhookAttempts and the webhook tool.
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  paginateQuery,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttemptOutcome } from './delivery-attempt.ts';
import type { DeliveryMessage } from './delivery-message.ts';

/** Days an attempt is kept (its item's time to live). */
export const attemptRetentionDays = 30;

/** Whether an attempt delivered (a 2xx) or failed. */
export type AttemptResult = 'delivered' | 'failed';

/** One attempt as the API shows it (`WebhookAttempt` of openapi.yaml); times RFC 3339 UTC with ms. */
export interface WebhookAttempt {
  /** `wa_` + 13 digits of the attempt's epoch ms + 12 hex characters: sorts by time. */
  id: string;
  eventId: string;
  eventType: string;
  /** 1 for the first attempt of the event, 2 for the first retry... */
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  responseStatus: number | null;
  /** A short reason without internals (`timeout`, `connection_refused`, ...), or null. */
  error: string | null;
  outcome: AttemptResult;
  /** When the next attempt is due, or null when none is (delivered, or failed for good). */
  nextAttemptAt: string | null;
}

/** What the delivery knows of one attempt once it has decided on it (lib/webhooks/delivery-lanes.ts). */
export interface AttemptFacts {
  message: Pick<DeliveryMessage, 'endpointId' | 'eventId' | 'type'>;
  attempt: number;
  /** Epoch ms the attempt started. */
  started: number;
  outcome: AttemptOutcome;
  /** When the next attempt of its event is due (lib/webhooks/delivery-decision.ts), or undefined when none is. */
  nextAttemptAt?: Date;
}

/** The start of every attempt id made at `epochMs` or later, in the attempt ids' order. */
function attemptIdsFrom(epochMs: number): string {
  return `wa_${String(epochMs).padStart(13, '0')}`;
}

/** An attempt's id at `at`: time-ordered, unique by its random tail. */
export function newAttemptId(at: Date): string {
  return `${attemptIdsFrom(at.getTime())}${randomBytes(6).toString('hex')}`;
}

/**
 * The short reason of a failed outcome (no host, address or stack): `timeout`, `redirect_not_followed`, null for
 * another answered status, else from the Node.js error text: `connection_refused`, `connection_reset`,
 * `dns_failure`, `url_refused` (the SSRF guard), `signing_failed`, `connection_failed`.
 */
export function attemptError(outcome: AttemptOutcome): string | null {
  if (outcome.delivered) return null;
  if (outcome.timedOut) return 'timeout';
  if (outcome.status !== undefined)
    return outcome.status >= 300 && outcome.status < 400 ? 'redirect_not_followed' : null;
  const text = outcome.error;
  if (text.includes('ECONNREFUSED')) return 'connection_refused';
  if (text.includes('ECONNRESET') || text.includes('socket hang up')) return 'connection_reset';
  if (text.includes('ENOTFOUND') || text.includes('EAI_AGAIN')) return 'dns_failure';
  if (text.startsWith('cannot sign')) return 'signing_failed';
  if (/refused|not allowed|not an absolute URL|credentials/.test(text)) return 'url_refused';
  return 'connection_failed';
}

/** The {@link WebhookAttempt} of `facts`, ended at `endedAt`. */
export function attemptOf(facts: AttemptFacts, endedAt: Date): WebhookAttempt {
  const { message, outcome } = facts;
  const startedAt = new Date(facts.started);
  return {
    id: newAttemptId(startedAt),
    eventId: message.eventId,
    eventType: message.type,
    attempt: facts.attempt,
    attemptedAt: startedAt.toISOString(),
    durationMs: Math.max(0, endedAt.getTime() - startedAt.getTime()),
    responseStatus: outcome.status ?? null,
    error: attemptError(outcome),
    outcome: outcome.delivered ? 'delivered' : 'failed',
    nextAttemptAt: facts.nextAttemptAt?.toISOString() ?? null,
  };
}

/** What the delivery function records attempts with. */
export interface AttemptRecorder {
  /**
   * Stores the attempt of `facts` under its endpoint, expiring {@link attemptRetentionDays} later: one PutItem.
   * Never throws: a write that fails is logged (the delivery goes on; the attempt is then not listed).
   */
  record(facts: AttemptFacts): Promise<void>;
}

/** The delivery function's writer into `tableName`; `log` gets a write that failed. */
export function attemptRecorder(
  client: DynamoDBClient,
  tableName: string,
  log: (message: string, details: Record<string, unknown>) => void,
): AttemptRecorder {
  return {
    async record(facts) {
      const { id, ...attempt } = attemptOf(facts, new Date());
      const expiresAt = Math.floor(facts.started / 1000) + attemptRetentionDays * 86_400;
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: marshall({
              endpointId: facts.message.endpointId,
              attemptId: id,
              ...attempt,
              expiresAt,
            }),
          }),
        );
      } catch (error) {
        log('webhook attempt not recorded', { eventId: facts.message.eventId, error: String(error) });
      }
    },
  };
}

/** One page of attempts, newest first, and the attempt id the next page continues below, if any. */
export interface AttemptPage {
  items: WebhookAttempt[];
  next?: string;
}

/** The stored item as a {@link WebhookAttempt}, members in the contract's order. */
function fromStored(item: Record<string, unknown>): WebhookAttempt {
  return {
    id: String(item.attemptId),
    eventId: String(item.eventId),
    eventType: String(item.eventType),
    attempt: Number(item.attempt),
    attemptedAt: String(item.attemptedAt),
    durationMs: Number(item.durationMs),
    responseStatus:
      item.responseStatus === null || item.responseStatus === undefined ? null : Number(item.responseStatus),
    error: item.error === null || item.error === undefined ? null : String(item.error),
    outcome: item.outcome as AttemptResult,
    nextAttemptAt:
      item.nextAttemptAt === null || item.nextAttemptAt === undefined ? null : String(item.nextAttemptAt),
  };
}

/**
 * At most `limit` attempts of `endpointId`, newest first, below the attempt id `below` when given, not older
 * than {@link attemptRetentionDays} at `now` (TTL deletes late): Query pages until `limit` or the partition's end.
 */
export async function attemptPage(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  options: { limit: number; below?: string; now: Date },
): Promise<AttemptPage> {
  const items: WebhookAttempt[] = [];
  const oldest = options.now.getTime() / 1000;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression:
          options.below === undefined ? 'endpointId = :e' : 'endpointId = :e AND attemptId < :below',
        FilterExpression: 'expiresAt > :now',
        ExpressionAttributeValues: marshall({
          ':e': endpointId,
          ':now': Math.floor(oldest),
          ...(options.below === undefined ? {} : { ':below': options.below }),
        }),
        ScanIndexForward: false,
        Limit: options.limit + 1 - items.length,
        ...(start && { ExclusiveStartKey: start }),
      }),
    );
    for (const item of page.Items ?? []) items.push(fromStored(unmarshall(item)));
    start = page.LastEvaluatedKey;
  } while (start && items.length <= options.limit);
  const more = items.length > options.limit;
  const shown = items.slice(0, options.limit);
  return more ? { items: shown, next: shown.at(-1)?.id as string } : { items: shown };
}

/**
 * Seconds back from now in which a delivery still being retried has its last attempt: a next attempt is due at
 * most 24 hours after its attempt (the schedule's delays are at most SQS's 12-hour visibility timeout,
 * lib/webhooks/retry-schedule.ts; a receiver's `Retry-After` at most 24 hours, docs/contract.md "History and
 * events"), and as long again covers a next attempt that is overdue.
 */
export const retryLookbackSeconds = 2 * 86_400;

/**
 * The deliveries of `endpointId` still being retried at `now` (the operator's `webhooks failures`): of each
 * event attempted in the last {@link retryLookbackSeconds}, its newest attempt when that one failed with a next
 * time; newest first. One Query of the endpoint's attempts since then (all pages).
 */
export async function retryingAttempts(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  now: Date,
): Promise<WebhookAttempt[]> {
  const pages = paginateQuery(
    { client },
    {
      TableName: tableName,
      KeyConditionExpression: 'endpointId = :e AND attemptId >= :since',
      ExpressionAttributeValues: marshall({
        ':e': endpointId,
        ':since': attemptIdsFrom(now.getTime() - retryLookbackSeconds * 1000),
      }),
      ScanIndexForward: false,
    },
  );
  const newest = new Map<string, WebhookAttempt>();
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const attempt = fromStored(unmarshall(item));
      if (!newest.has(attempt.eventId)) newest.set(attempt.eventId, attempt);
    }
  }
  return [...newest.values()].filter(
    (attempt) => attempt.outcome === 'failed' && attempt.nextAttemptAt !== null,
  );
}

/** The attempt ids listWebhookAttempts' cursor carries (as {@link newAttemptId} makes them). */
const attemptIdFormat = /^wa_\d{13}[0-9a-f]{12}$/;

/** The cursor of the page below the attempt `attemptId`. */
export function attemptCursor(attemptId: string): string {
  return Buffer.from(attemptId).toString('base64url');
}

/** The attempt id a cursor continues below, or undefined when the text is not a cursor {@link attemptCursor} wrote. */
export function attemptIdOfCursor(cursor: string): string | undefined {
  const attemptId = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  return attemptIdFormat.test(attemptId) && attemptCursor(attemptId) === cursor ? attemptId : undefined;
}
