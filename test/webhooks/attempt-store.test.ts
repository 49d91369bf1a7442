/**
 * The webhook attempts table on an embedded DynamoDB (lib/webhooks/attempt-log.ts; docs/contract.md "History and
 * events": listWebhookAttempts, newest first, kept 30 days; the operator's `webhooks failures`): what the delivery
 * writes, the pages the list reads, the deliveries still being retried.
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AttemptFacts,
  attemptPage,
  attemptRecorder,
  retryingAttempts,
  type WebhookAttempt,
} from '#lib/webhooks/attempt-log.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

const table = testTableNames.webhookAttempts;
let db: TestStore;

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
});
afterAll(() => db?.close());

const now = new Date('2026-12-08T10:00:00.000Z');
/** `now` plus `seconds`. */
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

/** Stores the attempt `id` of `endpointId` (event `eventId`) as the recorder writes it, expiring at `expiresAt`. */
async function store(
  endpointId: string,
  id: string,
  eventId: string,
  rest: Partial<WebhookAttempt> & { expiresAt?: number } = {},
) {
  const { expiresAt = Math.floor(now.getTime() / 1000) + 86_400, ...members } = rest;
  await db.client.send(
    new PutItemCommand({
      TableName: table,
      Item: marshall({
        endpointId,
        attemptId: id,
        eventId,
        eventType: 'inventory.changed',
        attempt: 1,
        attemptedAt: now.toISOString(),
        durationMs: 12,
        responseStatus: 503,
        error: null,
        outcome: 'failed',
        nextAttemptAt: null,
        ...members,
        expiresAt,
      }),
    }),
  );
}

/** The attempt id of epoch ms `ms` with the tail `tail` (12 hex characters). */
const idAt = (ms: number, tail = '000000000000') => `wa_${String(ms).padStart(13, '0')}${tail}`;

describe("the delivery's recorder", () => {
  test('one item per attempt under its endpoint, expiring 30 days after its start; listed as the contract shows it', async () => {
    const started = Date.now() - 1_000;
    const facts: AttemptFacts = {
      message: { endpointId: 'ws_RECORDED0000001', eventId: 'inventory.7.1', type: 'inventory.changed' },
      attempt: 2,
      started,
      outcome: { delivered: false, status: 503, error: 'HTTP 503' },
      nextAttemptAt: new Date(started + 300_000),
    };
    const logged: unknown[] = [];
    await attemptRecorder(db.client, table, (...line) => logged.push(line)).record(facts);
    expect(logged).toStrictEqual([]);
    const [item] = (await scanTable(db.client, table)).filter(
      (i) => i.endpointId?.S === 'ws_RECORDED0000001',
    );
    expect(item?.expiresAt).toStrictEqual({ N: String(Math.floor(started / 1000) + 30 * 86_400) });
    expect(item?.attemptId?.S).toMatch(new RegExp(`^wa_${started}[0-9a-f]{12}$`));
    const page = await attemptPage(db.client, table, 'ws_RECORDED0000001', { limit: 5, now: new Date() });
    expect(page).toStrictEqual({
      items: [
        {
          id: item?.attemptId?.S,
          eventId: 'inventory.7.1',
          eventType: 'inventory.changed',
          attempt: 2,
          attemptedAt: new Date(started).toISOString(),
          durationMs: expect.any(Number),
          responseStatus: 503,
          error: null,
          outcome: 'failed',
          nextAttemptAt: new Date(started + 300_000).toISOString(),
        },
      ],
    });
  });

  test('a write the table refuses is logged with the event id, and the delivery goes on', async () => {
    const logged: unknown[] = [];
    const recorder = attemptRecorder(db.client, 'pet-store-no-such-table', (message, details) =>
      logged.push([message, details]),
    );
    await expect(
      recorder.record({
        message: {
          endpointId: 'ws_RECORDED0000002',
          eventId: 'inventory.7.2',
          type: 'inventory.changed',
        },
        attempt: 1,
        started: Date.now(),
        outcome: { delivered: true, status: 204 },
      }),
    ).resolves.toBeUndefined();
    expect(logged).toStrictEqual([
      [
        'webhook attempt not recorded',
        { eventId: 'inventory.7.2', error: expect.stringContaining('ResourceNotFound') },
      ],
    ]);
  });
});

describe('listWebhookAttempts pages', () => {
  const endpointId = 'ws_PAGED0000000001';
  const ids = [1, 2, 3, 4, 5].map((n) => idAt(now.getTime() - 10_000 + n));

  beforeAll(async () => {
    for (const [n, id] of ids.entries()) {
      await store(endpointId, id, `inventory.7.${n + 1}`, {
        attempt: n + 1,
        responseStatus: n === 0 ? null : 200,
        error: n === 0 ? 'timeout' : null,
        outcome: n === 0 ? 'failed' : 'delivered',
        ...(n === 0 && { nextAttemptAt: '2026-12-08T10:05:00.000Z' }),
      });
    }
    // Another endpoint's attempt and an expired one of this endpoint, neither listed.
    await store('ws_PAGED0000000002', idAt(now.getTime()), 'inventory.8.1');
    await store(endpointId, idAt(now.getTime() - 20_000), 'inventory.7.0', {
      expiresAt: Math.floor(now.getTime() / 1000),
    });
  });

  test('newest first, at most limit, with the id the next page continues below', async () => {
    const first = await attemptPage(db.client, table, endpointId, { limit: 2, now });
    expect(first.items.map((a) => a.id)).toStrictEqual([ids[4], ids[3]]);
    expect(first.next).toBe(ids[3]);
    const second = await attemptPage(db.client, table, endpointId, { limit: 2, below: first.next, now });
    expect(second.items.map((a) => a.id)).toStrictEqual([ids[2], ids[1]]);
    expect(second.next).toBe(ids[1]);
  });

  test('the last page has no next; an expired attempt is not listed though TTL has not deleted it yet', async () => {
    const last = await attemptPage(db.client, table, endpointId, { limit: 2, below: ids[1], now });
    expect(last).toStrictEqual({
      items: [
        {
          id: ids[0],
          eventId: 'inventory.7.1',
          eventType: 'inventory.changed',
          attempt: 1,
          attemptedAt: now.toISOString(),
          durationMs: 12,
          responseStatus: null,
          error: 'timeout',
          outcome: 'failed',
          nextAttemptAt: '2026-12-08T10:05:00.000Z',
        },
      ],
    });
    const all = await attemptPage(db.client, table, endpointId, { limit: 5, now });
    expect(all.items.map((a) => a.id)).toStrictEqual([...ids].reverse());
    expect(all).not.toHaveProperty('next');
  });

  test('an attempt stored without an error, status or next time is listed with null ones', async () => {
    const bare = 'ws_PAGED0000000003';
    await db.client.send(
      new PutItemCommand({
        TableName: table,
        Item: marshall({
          endpointId: bare,
          attemptId: idAt(now.getTime()),
          eventId: 'inventory.9.1',
          eventType: 'inventory.changed',
          attempt: 1,
          attemptedAt: now.toISOString(),
          durationMs: 3,
          outcome: 'delivered',
          expiresAt: Math.floor(now.getTime() / 1000) + 60,
        }),
      }),
    );
    const { items } = await attemptPage(db.client, table, bare, { limit: 1, now });
    expect(items).toMatchObject([{ responseStatus: null, error: null, nextAttemptAt: null }]);
  });

  test('a page fuller than one Query answer reads on until limit', async () => {
    // A client that caps each Query at 2 items, as DynamoDB's 1 MB page does: the reader must follow the key.
    const capped = new DynamoDBClient({
      endpoint: db.endpoint,
      credentials: db.credentials,
      region: 'us-east-1',
    });
    capped.middlewareStack.add(
      (next) => async (args) => {
        const input = (args as { input: { Limit?: number } }).input;
        input.Limit = Math.min(input.Limit ?? 2, 2);
        return next(args);
      },
      { step: 'initialize' },
    );
    try {
      const page = await attemptPage(capped, table, endpointId, { limit: 4, now });
      expect(page.items.map((a) => a.id)).toStrictEqual([ids[4], ids[3], ids[2], ids[1]]);
      expect(page.next).toBe(ids[1]);
    } finally {
      capped.destroy();
    }
  });
});

describe("the operator's deliveries still being retried", () => {
  const endpointId = 'ws_RETRYING0000001';

  beforeAll(async () => {
    const ms = now.getTime();
    // inventory.1.1: failed, then failed again with a next time: retrying (its newest attempt).
    await store(endpointId, idAt(ms - 60_000), 'inventory.1.1', { nextAttemptAt: at(-30).toISOString() });
    await store(endpointId, idAt(ms - 10_000), 'inventory.1.1', {
      attempt: 2,
      nextAttemptAt: at(290).toISOString(),
    });
    // inventory.2.1: failed with a next time, then delivered: not retrying.
    await store(endpointId, idAt(ms - 50_000), 'inventory.2.1', { nextAttemptAt: at(-45).toISOString() });
    await store(endpointId, idAt(ms - 5_000), 'inventory.2.1', {
      attempt: 2,
      outcome: 'delivered',
      responseStatus: 200,
    });
    // inventory.3.1: failed for good (no next time): not retrying.
    await store(endpointId, idAt(ms - 4_000), 'inventory.3.1');
    // inventory.4.1: retrying, its last attempt just inside the 2-day look-back; inventory.5.1 just outside it.
    await store(endpointId, idAt(ms - 172_800_000), 'inventory.4.1', { nextAttemptAt: at(60).toISOString() });
    await store(endpointId, idAt(ms - 172_800_001), 'inventory.5.1', { nextAttemptAt: at(60).toISOString() });
  });

  test('of each event attempted in the last 2 days, its newest attempt when it failed with a next time; newest first', async () => {
    const retrying = await retryingAttempts(db.client, table, endpointId, now);
    expect(retrying.map((a) => [a.eventId, a.attempt, a.nextAttemptAt])).toStrictEqual([
      ['inventory.1.1', 2, at(290).toISOString()],
      ['inventory.4.1', 1, at(60).toISOString()],
    ]);
  });
});
