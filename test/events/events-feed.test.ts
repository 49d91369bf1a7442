/**
 * listEvents end to end on the local API serving the synthesized stack, with the event path running
 * (docs/contract.md "History and events"): the writes' stream records reach recordChanges, which appends each
 * event to the feed and puts it on the bus; a webhook receiver subscribed to every type gets the same events.
 * Exact bodies (each event as its webhook delivery plus its id), `Link` pages, `type=`, `after=` with an event id
 * and with a cursor, the 400s and the scope; a reader catching up after downtime; a reader paging while 20
 * writers write sees each event once, each pet's in sequence order, none missing against the history table.
 */
import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { eventTypes } from '#lib/events/changes.ts';
import { endpointStore } from '#lib/webhooks/endpoint-store.ts';
import { localTableNames } from '#local/settings.ts';
import { manyConnectionsTimeoutMs } from '#test/support/connection-retries.ts';
import { expectError } from '#test/support/http-assertions.ts';
import { type RawClient, rawClient, sendJson } from '#test/support/raw-http.ts';
import { startTestApi, type TestApi, unthrottled } from '#test/support/test-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

/** An event of the feed, ids read as their exact decimal text. */
interface FeedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: { sequence?: number; petId?: string; orderId?: string; status: { to: string } };
}

/** A page as the client sees it: status, body text, events, and the next page's path from its `Link`. */
interface Page {
  status: number;
  text: string;
  link: string;
  events: FeedEvent[];
  next: string;
}

/** The cursor of the feed's start: every log at position 0. */
const startCursor = 'MC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjA';

let api: TestApi;
let client: RawClient;
let receiver: WebhookReceiver;
beforeAll(async () => {
  api = await startTestApi({ events: true });
  client = rawClient(api.baseUrl, { maxSockets: 100, retryConnectionErrors: true });
  receiver = await startWebhookReceiver();
  const endpoints = endpointStore(api.dynamoDb, localTableNames().webhookEndpoints);
  await endpoints.add(`${receiver.endpoint}/hooks`, eventTypes, new Date());
});
afterAll(async () => {
  client?.close();
  await receiver?.close();
  await api?.close();
});

/** JSON with the ids (`petId`, `orderId`, `id` when a number) read as their exact decimal text. */
const exactJson = (text: string) =>
  JSON.parse(text, (key, value, context?: { source?: string }) =>
    ['petId', 'orderId', 'id'].includes(key) && typeof value === 'number' ? context?.source : value,
  );

/** `GET /v1<path>` with the test key (or `authorization`). */
function get(path: string, authorization = api.authorization) {
  return client.send({ method: 'GET', path, headers: [['Authorization', authorization]] });
}

/** `path` read as a page of the feed (asserting 200 and a `Link` rel="next" to `/v1/events`). */
async function page(path: string): Promise<Page> {
  const response = await get(path);
  expect(response.status, response.text).toBe(200);
  expect(response.headers['content-type']).toBe('application/json');
  const link = String(response.headers.link);
  const next = /^<\/v1(\/events\?[^>]+)>; rel="next"$/.exec(link)?.[1];
  expect(next, link).toBeDefined();
  return {
    status: response.status,
    text: response.text,
    link,
    events: exactJson(response.text),
    next: next as string,
  };
}

/** Pages from `path` on, following `Link`, until a page shorter than `limit`: the events and the last page's next path. */
async function readToEnd(path: string, limit: number) {
  const events: FeedEvent[] = [];
  let current = path;
  for (;;) {
    const read = await page(current);
    events.push(...read.events);
    current = read.next;
    if (read.events.length < limit) return { events, next: current };
  }
}

/** How `expect.poll` waits here for what the event path writes: polled every 50 ms, for at most 15 s. */
const polled = { timeout: 15_000, interval: 50 };

/** The deliveries the receiver got, by `webhook-id`: each one's body (retries carry the same). */
function deliveries(): Map<string, string> {
  return new Map(receiver.requests.map((request) => [String(request.headers['webhook-id']), request.body]));
}

/** The feed's JSON text of the delivered event `id`: the delivery's body with `id` first. */
function asDelivered(id: string): string {
  const body = deliveries().get(id);
  expect(body, id).toBeDefined();
  return `{"id":${JSON.stringify(id)},${(body as string).slice(1)}`;
}

/** `method path` with the test key and a JSON body; the status and the body's exact JSON. */
async function call(method: string, path: string, body: string) {
  const response = await sendJson(client, api.authorization, method, path, body);
  expect(response.status, response.text).toBeLessThan(300);
  return exactJson(response.text);
}

/** Every event of the feed from its start (pages of 1000). */
const wholeFeed = async () => (await readToEnd('/events?limit=1000', 1000)).events;

describe('listEvents', () => {
  test('an empty feed is 200 [] with a Link to continue from the start, keeping limit and type', async () => {
    const empty = await page('/events');
    expect([empty.text, empty.link]).toStrictEqual([
      '[]',
      `</v1/events?limit=100&after=${startCursor}>; rel="next"`,
    ]);
    const typed = await page('/events?type=order.changed&limit=5');
    expect([typed.text, typed.link]).toStrictEqual([
      '[]',
      `</v1/events?limit=5&type=order.changed&after=${startCursor}>; rel="next"`,
    ]);
  });

  test('lists every event once, oldest first, each exactly as its webhook delivery plus its id; pages, type= and after=', async () => {
    const petId = '9223372036854775807';
    const count = async (n: number) => (await wholeFeed()).length >= n;
    await call('POST', '/pets', `{"id": ${petId}, "name": "Feed", "status": "available"}`);
    await expect.poll(() => count(1), { ...polled, message: 'the created event' }).toBe(true);
    await call('PATCH', `/inventory/${petId}`, '{"quantity": 12, "reason": "arrival"}');
    await expect.poll(() => count(2), { ...polled, message: 'the arrival event' }).toBe(true);
    const order = await call('POST', '/store/orders', `{"petId": ${petId}, "quantity": 2}`);
    await expect.poll(() => count(4), { ...polled, message: 'the order and its stock events' }).toBe(true);
    await call('PATCH', `/store/orders/${order.id}`, '{"status": "approved"}');
    await expect.poll(() => count(5), { ...polled, message: 'the approval event' }).toBe(true);
    await expect.poll(() => deliveries().size, { ...polled, message: 'five deliveries' }).toBe(5);

    const whole = await page('/events');
    const ids = whole.events.map((event) => event.id);
    expect(ids.slice(0, 2)).toStrictEqual([`inventory.${petId}.1`, `inventory.${petId}.2`]);
    // One batch holds the order and its stock change, appended to two logs at once: either may come first.
    expect(new Set(ids.slice(2, 4))).toStrictEqual(
      new Set([`order.${order.id}.placed`, `inventory.${petId}.3`]),
    );
    expect(ids[4]).toBe(`order.${order.id}.approved`);
    expect(whole.text).toBe(`[${ids.map(asDelivered).join(',')}]`);

    // Pages of two, by Link; the page after the last is empty and keeps its cursor.
    const first = await page('/events?limit=2');
    const second = await page(first.next);
    const third = await page(second.next);
    const fourth = await page(third.next);
    expect([first, second, third].map((read) => read.events.map((event) => event.id))).toStrictEqual([
      ids.slice(0, 2),
      ids.slice(2, 4),
      ids.slice(4),
    ]);
    expect([fourth.text, fourth.link]).toStrictEqual(['[]', third.link]);
    expect(first.link).toMatch(/^<\/v1\/events\?limit=2&after=[A-Za-z0-9_-]+>; rel="next"$/);

    // type= keeps one type, in pages that keep it.
    const orders = await page('/events?type=order.changed');
    expect(orders.text).toBe(
      `[${[`order.${order.id}.placed`, `order.${order.id}.approved`].map(asDelivered).join(',')}]`,
    );
    expect(orders.link).toMatch(
      /^<\/v1\/events\?limit=100&type=order\.changed&after=[A-Za-z0-9_-]+>; rel="next"$/,
    );
    expect((await page(orders.next)).text).toBe('[]');

    // after=<event id>: the events after it in the feed's order; after=<cursor>: after a page.
    expect((await page(`/events?after=inventory.${petId}.2`)).text).toBe(
      `[${ids.slice(2).map(asDelivered).join(',')}]`,
    );
    expect((await page(`/events?type=inventory.changed&after=inventory.${petId}.1`)).text).toBe(
      `[${[`inventory.${petId}.2`, `inventory.${petId}.3`].map(asDelivered).join(',')}]`,
    );
    expect((await page(`/events?after=order.${order.id}.approved`)).text).toBe('[]');
    const afterCursor = first.next.replace('limit=2&', '');
    expect((await page(afterCursor)).text).toBe(`[${ids.slice(2).map(asDelivered).join(',')}]`);
  });

  test('a bad limit, type or after, or another parameter, is 400 with its Error body', async () => {
    const limitRule = 'limit must be an integer from 1 to 1000';
    const afterRule =
      'after must be an event id (inventory.<petId>.<sequence>, order.<orderId>.<status> or inventory_low_stock.<petId>.<sequence>.<reorderPoint>) or the cursor of a Link header';
    const cases: [string, string][] = [
      ['/events?limit=0', limitRule],
      ['/events?limit=1001', limitRule],
      ['/events?limit=01', limitRule],
      ['/events?limit=abc', limitRule],
      ['/events?type=inventory', 'type must be one of inventory.changed, order.changed, inventory.low_stock'],
      ['/events?type=', 'type must be one of inventory.changed, order.changed, inventory.low_stock'],
      ['/events?after=', afterRule],
      ['/events?after=bm90IGEgY3Vyc29y', afterRule],
      [`/events?after=${startCursor.slice(0, -2)}`, afterRule],
      ['/events?after=inventory.07.1', afterRule],
      ['/events?after=order.7.shipped', afterRule],
      [`/events?after=inventory.1.${'9'.repeat(10_000)}`, afterRule],
      ['/events?after=inventory.8080.1', 'after names no event of the last 30 days: inventory.8080.1'],
      ['/events?after=order.1.placed', 'after names no event of the last 30 days: order.1.placed'],
      [
        '/events?cursor=abc',
        'query parameters not allowed: "cursor" (this operation takes limit, type, after)',
      ],
      [
        '/events?type=order.changed&type=inventory.changed',
        'query parameter type must be given at most once',
      ],
      [
        `/events?after=${startCursor}&after=${startCursor}`,
        'query parameter after must be given at most once',
      ],
    ];
    for (const [path, message] of cases) expectError(await get(path), 400, 'invalid_request', message);
  });

  test('a key without events:read is 403; a key holding only it, or stored before scopes existed, reads the feed', async () => {
    const keyWith = async (scopes?: string[]) => {
      const key = generateApiKey();
      await api.keys.put({
        keyDigest: apiKeyDigest(key),
        name: `events-${scopes?.join('-') ?? 'every'}`,
        createdAt: new Date().toISOString(),
        ...(scopes && { scopes: scopes as never }),
        ...unthrottled,
      });
      return `Bearer ${key}`;
    };
    for (const scope of ['inventory:read', 'inventory:write', 'orders:read', 'orders:write']) {
      expectError(
        await get('/events', await keyWith([scope])),
        403,
        'forbidden',
        'this API key lacks the scope events:read that listEvents requires',
      );
    }
    const expected = (await get('/events?limit=3')).text;
    for (const authorization of [await keyWith(['events:read']), await keyWith()]) {
      const response = await get('/events?limit=3', authorization);
      expect([response.status, response.text]).toStrictEqual([200, expected]);
    }
  });
});

describe('an events reader catching up after downtime', { timeout: 120_000 }, () => {
  test('gets every event written while it did not read, once, in sequence order per pet, as the webhooks carried them', async () => {
    const before = await readToEnd('/events?limit=50', 50);
    // Downtime: pets added, stock changed, orders placed, one cancelled.
    const pets = ['7001', '7002', '7003', '-7004', '7005', '7006'];
    for (const petId of pets)
      await call('POST', '/pets', `{"id": ${petId}, "name": "Back", "status": "available"}`);
    for (let round = 1; round <= 5; round++) {
      await Promise.all(
        pets.map((petId) => call('PATCH', `/inventory/${petId}`, `{"quantity": ${round * 10}}`)),
      );
    }
    const orders: { id: string }[] = [];
    for (const petId of pets.slice(0, 3))
      orders.push(await call('POST', '/store/orders', `{"petId": ${petId}, "quantity": 3}`));
    await call('PATCH', `/store/orders/${orders[0]?.id}`, '{"status": "cancelled"}');
    // 6 created + 30 PATCHes + 3 x (placed + stock) + (cancelled + restock).
    const expected = 6 + 30 + 3 * 2 + 2;
    const ours = (id: string) =>
      pets.some((petId) => id.startsWith(`inventory.${petId}.`)) ||
      orders.some((order) => id.startsWith(`order.${order.id}.`));
    await expect
      .poll(() => [...deliveries().keys()].filter(ours).length, {
        ...polled,
        timeout: 30_000,
        message: 'every delivery',
      })
      .toBe(expected);

    const caught = await readToEnd(before.next.replace('limit=50', 'limit=7'), 7);
    const ids = caught.events.map((event) => event.id);
    expect(ids.length).toBe(expected);
    expect(new Set(ids)).toStrictEqual(new Set([...deliveries().keys()].filter(ours)));
    for (const id of ids) {
      expect(JSON.stringify(caught.events.find((event) => event.id === id))).toBe(
        JSON.stringify(exactJson(asDelivered(id))),
      );
    }
    for (const petId of pets) {
      const sequences = caught.events
        .filter((event) => event.type === 'inventory.changed' && event.data.petId === petId)
        .map((event) => event.data.sequence);
      expect(sequences, petId).toStrictEqual(
        Array.from({ length: sequences.length }, (_, index) => index + 1),
      );
    }
    // Up to date: the next page is empty.
    expect((await page(caught.next)).text).toBe('[]');
  });
});

describe('a reader paging while 20 writers write', { timeout: manyConnectionsTimeoutMs }, () => {
  test('sees each event exactly once, each pet in sequence order, none missing against the history table', async () => {
    const start = (await readToEnd('/events?limit=100', 100)).next;
    const pets = ['8101', '8102', '8103', '8104', '8105'];
    await api.inventory.putMany(
      pets.map((petId) => ({ petId, quantity: 10_000, status: 'available' as const })),
    );

    // 5 imports, then 20 writers x 8 steps: 7 PATCHes (even quantities) and an order of 1 (odd after it), so
    // that every step changes its pet's stock: one record each.
    const expectedRecords = 5 + 20 * 8;
    let writing = true;
    const writers = Array.from({ length: 20 }, async (_, writer) => {
      for (let step = 0; step < 8; step++) {
        const petId = pets[(writer + step) % pets.length] as string;
        const response =
          step === 4
            ? await sendJson(
                client,
                api.authorization,
                'POST',
                '/store/orders',
                `{"petId": ${petId}, "quantity": 1}`,
              )
            : await sendJson(
                client,
                api.authorization,
                'PATCH',
                `/inventory/${petId}`,
                `{"quantity": ${2 * (writer * 10 + step) + 1000}}`,
              );
        expect(response.status, response.text).toBeLessThan(300);
      }
    });
    const seen: FeedEvent[] = [];
    const history = async () =>
      (await api.tableItems('inventoryHistory')).filter((item) => pets.includes(item.petId as string));
    const reader = (async () => {
      let next = start.replace('limit=100', 'limit=10');
      const deadline = Date.now() + 60_000;
      for (;;) {
        const read = await page(next);
        seen.push(...read.events);
        next = read.next;
        const inventorySeen = seen.filter((event) => event.type === 'inventory.changed').length;
        const ordersSeen = seen.filter((event) => event.type === 'order.changed').length;
        // Quiet: the writers are done and as many events seen as they made (a repeat would show below).
        if (!writing && inventorySeen >= expectedRecords && ordersSeen >= 20) return;
        if (Date.now() > deadline) return;
        if (read.events.length < 10) await setTimeout(20);
      }
    })();
    await Promise.all(writers);
    writing = false;
    await reader;
    await expect
      .poll(async () => (await history()).length, { ...polled, message: 'every history record' })
      .toBeGreaterThanOrEqual(expectedRecords);

    const ids = seen.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const recorded = (await history()).map((item) => `inventory.${item.petId}.${item.sequence}`);
    expect(recorded.length).toBe(expectedRecords);
    expect(new Set(ids.filter((id) => id.startsWith('inventory.')))).toStrictEqual(new Set(recorded));
    expect(ids.filter((id) => id.startsWith('order.')).length).toBe(20);
    for (const petId of pets) {
      const sequences = seen.filter(
        (event) => event.data.petId === petId && event.type === 'inventory.changed',
      );
      expect(sequences.map((event) => event.data.sequence)).toStrictEqual(
        Array.from({ length: sequences.length }, (_, index) => index + 1),
      );
    }
  });
});
