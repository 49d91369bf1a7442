/**
 * The events feed's logs on a real DynamoDB API (in-memory dynalite): lib/events/event-append.ts appends each
 * event once, lib/events/event-feed.ts merges the logs into pages (docs/architecture.md "The events feed",
 * docs/contract.md "History and events"). The items as stored, a retried batch, the merge order and its
 * cursor, the type filter, the 30 days, and 20 appenders racing on the same logs while a reader pages.
 */
import { setTimeout } from 'node:timers/promises';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { changeJson } from '#lib/events/change-json.ts';
import { type ChangeEvent, changeEventId, eventTimestamp, eventTypes } from '#lib/events/changes.ts';
import { appendEvents } from '#lib/events/event-append.ts';
import {
  type EventPlace,
  type FeedEvent,
  feedJson,
  feedPage,
  placeOf,
  positionsAfter,
} from '#lib/events/event-feed.ts';
import { logCount, logKey, logOf, retentionMs } from '#lib/events/event-logs.ts';
import type { OrderStatus } from '#lib/orders/order.ts';
import { type RawItem, scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
const table = testTableNames.events;
const documents = () => toDocumentClient(db.client);

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  for (const item of await scanTable(db.client, table)) {
    await db.client.send(
      new DeleteItemCommand({
        TableName: table,
        Key: { log: item.log as never, position: item.position as never },
      }),
    );
  }
});

/** An `inventory.changed` event of `petId` numbered `sequence`. */
function inventoryEvent(petId: string, sequence: number): ChangeEvent {
  return {
    type: 'inventory.changed',
    data: {
      sequence,
      petId,
      occurredAt: '2026-11-27T10:00:00.000Z',
      reason: sequence === 1 ? 'created' : 'adjustment',
      quantity: { from: sequence === 1 ? null : sequence - 1, to: sequence },
      status: { from: sequence === 1 ? null : 'available', to: 'available' },
      keyId: '0123456789ab',
    },
  };
}

/** An `order.changed` event of `orderId` reaching `status`. */
function orderEvent(orderId: string, status: OrderStatus): ChangeEvent {
  return {
    type: 'order.changed',
    data: {
      orderId,
      occurredAt: '2026-11-27T10:00:01.500Z',
      status: { from: status === 'placed' ? null : 'placed', to: status },
      order: { id: orderId, petId: '9223372036854775807', quantity: 2, status, complete: false },
    },
  };
}

/** A feed event as the feed answers it for `event`. */
const asFeedEvent = (event: ChangeEvent): FeedEvent => ({
  id: changeEventId(event),
  type: event.type,
  timestamp: eventTimestamp(event),
  data: changeJson(event),
});

/** The time of the tests' appends: 2026-11-27T10:00:00.000Z. */
const t0 = Date.UTC(2026, 10, 27, 10);
const zeros = () => Array<number>(logCount).fill(0);

/** Pet ids from `from` on whose events go to the inventory log `log`. */
function petsOfLog(log: number, count: number, from = 1): string[] {
  const pets: string[] = [];
  for (let petId = from; pets.length < count; petId++) {
    if (logOf(inventoryEvent(String(petId), 1)) === log) pets.push(String(petId));
  }
  return pets;
}

describe('appendEvents', () => {
  test("stores each event at its log and position with its id marker, and the feed's one head", async () => {
    const [pet] = petsOfLog(3, 1) as [string];
    const events = [inventoryEvent(pet, 1), orderEvent('7529104386949123', 'placed'), inventoryEvent(pet, 2)];
    await appendEvents(documents(), table, events, () => t0);
    const orderLog = logOf(events[1] as ChangeEvent);
    const expiresAt = String((t0 + retentionMs) / 1000);
    const eventItem = (event: ChangeEvent, log: number, position: number): RawItem => ({
      log: { S: logKey(log) },
      position: { N: String(position) },
      id: { S: changeEventId(event) },
      type: { S: event.type },
      timestamp: { S: eventTimestamp(event) },
      data: { S: changeJson(event) },
      expiresAt: { N: expiresAt },
    });
    const marker = (event: ChangeEvent, log: number, position: number): RawItem => ({
      log: { S: `id#${changeEventId(event)}` },
      position: { N: '0' },
      eventLog: { N: String(log) },
      eventPosition: { N: String(position) },
      expiresAt: { N: expiresAt },
    });
    const byKey = (a: RawItem, b: RawItem) =>
      `${a.log?.S} ${a.position?.N}` < `${b.log?.S} ${b.position?.N}` ? -1 : 1;
    expect((await scanTable(db.client, table)).sort(byKey)).toStrictEqual(
      [
        { log: { S: 'head' }, position: { N: '0' }, last: { N: String(t0 * 1000 + 2) } },
        eventItem(events[0] as ChangeEvent, 3, t0 * 1000),
        eventItem(events[2] as ChangeEvent, 3, t0 * 1000 + 2),
        eventItem(events[1] as ChangeEvent, orderLog, t0 * 1000 + 1),
        marker(events[0] as ChangeEvent, 3, t0 * 1000),
        marker(events[2] as ChangeEvent, 3, t0 * 1000 + 2),
        marker(events[1] as ChangeEvent, orderLog, t0 * 1000 + 1),
      ].sort(byKey),
    );
  });

  test('a retried batch appends nothing twice; one half appended before gets the rest after it, in order', async () => {
    const [pet] = petsOfLog(5, 1) as [string];
    const events = [1, 2, 3, 4].map((sequence) => inventoryEvent(pet, sequence));
    await appendEvents(documents(), table, events.slice(0, 2), () => t0);
    const before = await scanTable(db.client, table);
    await appendEvents(documents(), table, events.slice(0, 2), () => t0 + 5);
    expect(await scanTable(db.client, table)).toStrictEqual(before);
    await appendEvents(documents(), table, events, () => t0 + 10);
    const page = await feedPage(documents(), table, {
      limit: 10,
      types: eventTypes,
      after: zeros(),
      nowMs: t0,
    });
    expect(page.events).toStrictEqual(events.map(asFeedEvent));
    expect(page.next[5]).toBe((t0 + 10) * 1000 + 1);
  });

  test('more than one transaction of events for one log: 120 events appended in order', async () => {
    const [pet] = petsOfLog(1, 1) as [string];
    const events = Array.from({ length: 120 }, (_, index) => inventoryEvent(pet, index + 1));
    await appendEvents(documents(), table, events, () => t0);
    const page = await feedPage(documents(), table, {
      limit: 1000,
      types: eventTypes,
      after: zeros(),
      nowMs: t0,
    });
    expect(page.events.map((event) => event.id)).toStrictEqual(events.map(changeEventId));
  });
});

describe('feedPage', () => {
  /** Events appended one call each at the given millisecond offsets from t0, in this order. */
  async function appendAt(steps: readonly [number, ChangeEvent][]) {
    for (const [offset, event] of steps) await appendEvents(documents(), table, [event], () => t0 + offset);
  }

  test("merges the logs in the order of their appends (the feed's positions, whatever the clocks), in pages that continue without a miss or a repeat", async () => {
    const [a, b] = [petsOfLog(2, 1)[0] as string, petsOfLog(6, 1)[0] as string];
    const order = orderEvent('11', 'placed');
    const steps: [number, ChangeEvent][] = [
      [0, inventoryEvent(b, 1)],
      [0, inventoryEvent(a, 1)],
      [0, order],
      [3, inventoryEvent(a, 2)],
      [2, inventoryEvent(b, 2)],
      [7, orderEvent('11', 'approved')],
    ];
    await appendAt(steps);
    // Append order across the logs, b's second event after a's though its clock read an earlier millisecond.
    const expected = steps.map(([, event]) => asFeedEvent(event));
    const whole = await feedPage(documents(), table, {
      limit: 100,
      types: eventTypes,
      after: zeros(),
      nowMs: t0,
    });
    expect(whole.events).toStrictEqual(expected);
    const seen: FeedEvent[] = [];
    let after = zeros();
    for (let pages = 0; pages < 10; pages++) {
      const page = await feedPage(documents(), table, { limit: 4, types: eventTypes, after, nowMs: t0 });
      seen.push(...page.events);
      after = page.next;
      if (page.events.length < 4) break;
    }
    expect(seen).toStrictEqual(expected);
    expect(after).toStrictEqual(whole.next);
    // A page without events continues where it started.
    const empty = await feedPage(documents(), table, { limit: 4, types: eventTypes, after, nowMs: t0 });
    expect(empty).toStrictEqual({ events: [], next: after });
    expect(feedJson(expected.slice(0, 1))).toBe(
      `[{"id":"inventory.${b}.1","type":"inventory.changed","timestamp":"2026-11-27T10:00:00.000Z","data":${changeJson(inventoryEvent(b, 1))}}]`,
    );
  });

  test("type keeps that type's logs; the other logs' positions pass through unchanged", async () => {
    await appendAt([
      [0, inventoryEvent('1', 1)],
      [1, orderEvent('12', 'placed')],
      [2, orderEvent('12', 'cancelled')],
    ]);
    const start = Array.from({ length: logCount }, (_, log) => log);
    const page = await feedPage(documents(), table, {
      limit: 10,
      types: ['order.changed'],
      after: start,
      nowMs: t0,
    });
    expect(page.events).toStrictEqual(
      [orderEvent('12', 'placed'), orderEvent('12', 'cancelled')].map(asFeedEvent),
    );
    const orderLog = logOf(orderEvent('12', 'placed'));
    expect(page.next).toStrictEqual(
      start.map((position, log) => (log === orderLog ? (t0 + 2) * 1000 : position)),
    );
  });

  test('skips events appended 30 days ago or earlier, though DynamoDB has not deleted them yet', async () => {
    await appendAt([
      [0, inventoryEvent('1', 1)],
      [1, inventoryEvent('1', 2)],
    ]);
    const at = (nowMs: number) =>
      feedPage(documents(), table, { limit: 10, types: eventTypes, after: zeros(), nowMs });
    expect((await at(t0 + retentionMs)).events).toStrictEqual([asFeedEvent(inventoryEvent('1', 2))]);
    expect((await at(t0 + retentionMs + 1)).events).toStrictEqual([]);
    expect(await placeOf(documents(), table, 'inventory.1.1', t0 + retentionMs - 1)).toStrictEqual({
      log: logOf(inventoryEvent('1', 1)),
      position: t0 * 1000,
    });
    expect(await placeOf(documents(), table, 'inventory.1.1', t0 + retentionMs)).toBeUndefined();
    expect(await placeOf(documents(), table, 'inventory.1.3', t0)).toBeUndefined();
    expect((await scanTable(db.client, table)).length).toBe(5);
  });
});

describe('20 appenders racing on the same logs while a reader pages', { timeout: 240_000 }, () => {
  test('the reader sees each event exactly once, each pet in sequence order, none missing', async () => {
    // One pet per appender, five in each of the logs 0 to 3: every append meets four others' on the same head.
    const pets = [0, 1, 2, 3].flatMap((log) => petsOfLog(log, 5));
    const perPet = 12;
    let writing = true;
    const appenders = pets.map(async (petId) => {
      // Batches of two events, as a stream batch holding two changes of the pet. A batch whose log's head
      // stayed taken past the append budget (a loaded machine) is retried whole, as the stream mapping does.
      for (let sequence = 1; sequence <= perPet; sequence += 2) {
        const batch = [inventoryEvent(petId, sequence), inventoryEvent(petId, sequence + 1)];
        for (let attempt = 1; ; attempt++) {
          try {
            await appendEvents(documents(), table, batch);
            break;
          } catch (error) {
            if (attempt === 3 || !/stayed taken/.test(String(error))) throw error;
          }
        }
      }
    });
    const seen: FeedEvent[] = [];
    const reader = (async () => {
      let after = zeros();
      for (;;) {
        const done = !writing;
        const page = await feedPage(documents(), table, { limit: 7, types: eventTypes, after });
        seen.push(...page.events);
        after = page.next;
        if (done && page.events.length < 7) return;
        // A reader polling: a short pause between pages.
        await setTimeout(50);
      }
    })();
    const appended = await Promise.allSettled(appenders);
    writing = false;
    await reader;
    expect(appended.filter((outcome) => outcome.status === 'rejected')).toStrictEqual([]);

    const ids = seen.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(pets.length * perPet);
    for (const petId of pets) {
      const sequences = seen
        .filter((event) => event.id.startsWith(`inventory.${petId}.`))
        .map((event) => Number(event.id.split('.')[2]));
      expect(sequences).toStrictEqual(Array.from({ length: perPet }, (_, index) => index + 1));
    }
  });
});

describe('readers resuming from event ids while 8 appenders, one per inventory log, append', {
  timeout: 240_000,
}, () => {
  test('after=<id> continues exactly after that event: pages resumed from their last id, and ids as webhooks carry them, miss and repeat nothing', async () => {
    // A pet in each of the 8 inventory logs: appends on every log at once.
    const pets = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((log) => petsOfLog(log, 1));
    const perPet = 10;
    /** The ids appended so far, each as soon as its append answered (what a webhook would carry next). */
    const appendedIds: string[] = [];
    let writing = true;
    // Every other appender's clock is 200 ms behind (consumers on other machines; or a transaction slower than
    // a later one): its events land in the feed's order before events appended earlier.
    const appenders = pets.map(async (petId, index) => {
      const now = index % 2 === 0 ? Date.now : () => Date.now() - 200;
      for (let sequence = 1; sequence <= perPet; sequence += 1) {
        const event = inventoryEvent(petId, sequence);
        for (let attempt = 1; ; attempt++) {
          try {
            await appendEvents(documents(), table, [event], now);
            break;
          } catch (error) {
            if (attempt === 3 || !/stayed taken/.test(String(error))) throw error;
          }
        }
        appendedIds.push(changeEventId(event));
      }
    });
    /** The positions `after=<id>` starts from, as listEvents resolves them. */
    const afterId = async (id: string) =>
      positionsAfter((await placeOf(documents(), table, id)) as EventPlace);
    // A reader paging by ids: each next page starts after the id of the last event it got.
    const seen: FeedEvent[] = [];
    const pager = (async () => {
      let after = zeros();
      for (;;) {
        const done = !writing;
        const page = await feedPage(documents(), table, { limit: 7, types: eventTypes, after });
        seen.push(...page.events);
        const last = seen.at(-1);
        if (last) after = await afterId(last.id);
        if (done && page.events.length < 7) return;
        await setTimeout(20);
      }
    })();
    // A consumer of webhooks: after the id of the latest event delivered, what the feed lists then.
    const resumed: { id: string; events: string[] }[] = [];
    const webhookReader = (async () => {
      while (writing) {
        const id = appendedIds.at(-1);
        if (id) {
          const page = await feedPage(documents(), table, {
            limit: 1000,
            types: eventTypes,
            after: await afterId(id),
          });
          resumed.push({ id, events: page.events.map((event) => event.id) });
        }
        await setTimeout(30);
      }
    })();
    const appended = await Promise.allSettled(appenders);
    writing = false;
    await Promise.all([pager, webhookReader]);
    expect(appended.filter((outcome) => outcome.status === 'rejected')).toStrictEqual([]);

    const whole = await feedPage(documents(), table, { limit: 1000, types: eventTypes, after: zeros() });
    const feed = whole.events.map((event) => event.id);
    expect(feed.length).toBe(pets.length * perPet);
    // The pager got the whole feed, in its order, each event once.
    expect(seen.map((event) => event.id)).toStrictEqual(feed);
    // Each resumption from a webhook's id got the events right after it in the feed's order, none skipped.
    expect(resumed.length).toBeGreaterThan(0);
    for (const { id, events } of resumed) {
      const from = feed.indexOf(id) + 1;
      expect({ id, events }).toStrictEqual({ id, events: feed.slice(from, from + events.length) });
    }
  });
});
