/**
 * The examples of openapi.yaml that only the event path produces (test/support/openapi-examples.ts
 * `eventPathExamples`), on the synthesized stack served with its event path: one story of pet 7 (created, an
 * arrival with its reorder point, an order, a sale down to the point) and an order of pet 9, delivered to a
 * local receiver subscribed through the API. A response example is the answer to its request once the record is
 * there; a webhook's example is the body the receiver got; the values that are necessarily different in each run
 * (times, assigned ids, the caller's key id, the endpoint's id) are matched by shape only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentExamples, eventPathExamples, exactJson, shaped } from '#test/support/openapi-examples.ts';
import { parseJsonExact } from '#test/support/openapi-validator.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';
import { testApiSuite } from '#test/support/test-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

const api = testApiSuite({ events: true });
let receiver: WebhookReceiver;
/** The endpoint that delivers to {@link receiver}. */
let endpointId: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const created = await send('POST', '/webhook-endpoints', { url: `${receiver.endpoint}/hooks` });
  expect(created.status).toBe(201);
  endpointId = (created.body as { id: string }).id;
});
afterAll(() => receiver?.close());

/** An answer: its status and its body read exactly (int64s beyond 2^53 as bigints). */
interface Answer {
  status: number;
  body: unknown;
}

/** Sends a request under the stage with the suite's key; `body` is sent as exact JSON. */
async function send(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await api.request(method, path, {
    headers: {
      Authorization: api.authorization,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: exactJson(body) }),
  });
  return { status: response.status, body: response.text === '' ? '' : parseJsonExact(response.text) };
}

/** Polls `GET path` until its body satisfies `ready`: that answer. */
async function whenReady(path: string, ready: (body: unknown) => boolean): Promise<Answer> {
  let answer: Answer = { status: 0, body: null };
  await expect
    .poll(
      async () => {
        answer = await send('GET', path);
        return answer.status === 200 && ready(answer.body);
      },
      { timeout: 20_000, interval: 200 },
    )
    .toBe(true);
  return answer;
}

/** The body of the first delivery the receiver got whose `webhook-id` or `type` satisfies `which`, once there. */
async function delivered(which: (id: string, type: string) => boolean): Promise<Answer> {
  const find = () =>
    receiver.requests.find((request) => {
      const body = JSON.parse(request.body) as { type: string };
      return which(String(request.headers['webhook-id'] ?? ''), body.type);
    });
  await expect.poll(() => find() !== undefined, { timeout: 20_000, interval: 200 }).toBe(true);
  return { status: 200, body: parseJsonExact(find()?.body ?? '') };
}

/** The number of items of a list body (an array, or `{"items"}`). */
const count = (body: unknown) =>
  Array.isArray(body) ? body.length : ((body as { items?: unknown[] }).items ?? []).length;

/** The id of pet 7's order, once placed. */
let orderOf7 = '';

/**
 * How each example is produced, in the story's order: `produce` makes the next step and answers what the
 * service gave; `status` what it answers (200 for a delivery, which the receiver answered); `shapeOnly` the
 * members matched by shape only.
 */
const proofs: Record<string, { produce: () => Promise<Answer>; status: number; shapeOnly: string[] }> = {
  'listInventoryHistory 200 created': {
    produce: async () => {
      expect((await send('POST', '/pets', { id: 9223372036854775807n, name: 'Max' })).status).toBe(201);
      return whenReady('/inventory/9223372036854775807/history', (body) => count(body) === 1);
    },
    status: 200,
    shapeOnly: ['occurredAt', 'keyId'],
  },
  'listInventoryHistory 200 page': {
    produce: async () => {
      expect((await send('POST', '/pets', { id: 7, name: 'Rex' })).status).toBe(201);
      const arrival = await send('PATCH', '/inventory/7', {
        quantity: 12,
        reason: 'arrival',
        reorderPoint: 5,
      });
      expect(arrival.status).toBe(200);
      const order = await send('POST', '/store/orders', { petId: 7, quantity: 2 });
      expect(order.status).toBe(201);
      orderOf7 = String((order.body as { id: number }).id);
      return whenReady(
        '/inventory/7/history?limit=2',
        (body) => (body as { sequence: number }[])[0]?.sequence === 3,
      );
    },
    status: 200,
    shapeOnly: ['occurredAt', 'orderId', 'keyId'],
  },
  'inventoryChanged request orderPlaced': {
    produce: () => delivered((id) => id === 'inventory.7.3'),
    status: 200,
    shapeOnly: ['timestamp', 'occurredAt', 'orderId', 'keyId'],
  },
  'listEvents 200 page': {
    produce: async () => {
      // The order's event and the stock's come from two tables' streams: appended in either order.
      const page = await whenReady('/events?after=inventory.7.2&limit=2', (body) => count(body) === 2);
      const ids = (page.body as { id: string }[]).map((event) => event.id);
      expect(ids.sort()).toEqual(['inventory.7.3', `order.${orderOf7}.placed`]);
      const [first] = page.body as { id: string }[];
      return first?.id === 'inventory.7.3'
        ? page
        : { ...page, body: [...(page.body as unknown[])].reverse() };
    },
    status: 200,
    shapeOnly: ['id', 'timestamp', 'occurredAt', 'orderId', 'keyId'],
  },
  'orderChanged request placed': {
    produce: async () => {
      await api.putRawItems([inventoryRecord('9', 100, 'available')]);
      const order = await send('POST', '/store/orders', { petId: 9, quantity: 2 });
      expect(order.status).toBe(201);
      const id = String((order.body as { id: number }).id);
      return delivered((webhookId) => webhookId === `order.${id}.placed`);
    },
    status: 200,
    shapeOnly: ['timestamp', 'occurredAt', 'orderId', 'id', 'keyId'],
  },
  'inventoryLowStock request sold': {
    produce: async () => {
      expect((await send('PATCH', '/inventory/7', { adjustBy: -6, reason: 'sale' })).status).toBe(200);
      return delivered((_id, type) => type === 'inventory.low_stock');
    },
    status: 200,
    shapeOnly: ['timestamp'],
  },
  'listInventory 200 low': {
    produce: () => whenReady('/inventory?lowStock=true', (body) => count(body) > 0),
    status: 200,
    shapeOnly: [],
  },
  'sendTestWebhook 202 sent': {
    produce: () => send('POST', `/webhook-endpoints/${endpointId}/test`),
    status: 202,
    shapeOnly: ['eventId'],
  },
  'webhookTest request test': {
    produce: () => delivered((_id, type) => type === 'webhook.test'),
    status: 200,
    shapeOnly: ['timestamp', 'endpointId'],
  },
  'redeliverWebhook request inventory': {
    // The README's first pet, its creation's event delivered to the endpoint, then sent again (the example).
    produce: async () => {
      const created = await send('POST', '/pets', { id: 7532043913479288511n, name: 'Rex' });
      expect(created.status).toBe(201);
      await delivered((id) => id === 'inventory.7532043913479288511.1');
      return send('POST', `/webhook-endpoints/${endpointId}/redeliveries`, {
        eventId: 'inventory.7532043913479288511.1',
      });
    },
    status: 202,
    shapeOnly: [],
  },
  'redeliverWebhook 202 sent': {
    produce: () =>
      send('POST', `/webhook-endpoints/${endpointId}/redeliveries`, {
        eventId: 'inventory.7532043913479288511.1',
      }),
    status: 202,
    shapeOnly: [],
  },
};

describe('the examples of openapi.yaml that the event path produces', () => {
  it('are the ones test/support/openapi-examples.ts names, each an example of the document', () => {
    expect(Object.keys(proofs).sort()).toEqual([...eventPathExamples].sort());
    for (const name of eventPathExamples) expect(documentExamples.has(name), name).toBe(true);
  });

  it.each(Object.keys(proofs))(
    '%s is produced by the service',
    async (name) => {
      const proof = proofs[name] as (typeof proofs)[string];
      const example = documentExamples.get(name);
      expect(await proof.produce()).toEqual({ status: proof.status, body: shaped(example, proof.shapeOnly) });
    },
    60_000,
  );
});
