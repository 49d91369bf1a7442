/**
 * Webhook endpoints a client makes with its API key, end to end on the local API serving the synthesized stack
 * (docs/contract.md "History and events"): the endpoint of a createWebhookEndpoint receives the changes of its
 * event types, signed with the secret of the 201 (verified with `standardwebhooks`) and as openapi.yaml's
 * `webhooks` declare them; a deleted endpoint receives nothing more; an endpoint failing every attempt is
 * disabled by the breaker and enabled again by creating its URL again, then receives with its first secret.
 * Retries after 1 s, the breaker after 1 s of failures (WEBHOOK_RETRY_DELAYS, WEBHOOK_DISABLE_AFTER_SECONDS).
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { webhookEnv } from '#lib/webhooks/webhook-env.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { validateWebhookBody } from '#test/support/openapi-validator.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi, unthrottled } from '#test/support/test-api.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '#test/support/webhook-receiver.ts';

let api: TestApi;
let inventoryOnly: WebhookReceiver;
let everything: WebhookReceiver;
let failing: WebhookReceiver;
/** The client's key, as `Bearer <key>`. */
let client: string;
beforeAll(async () => {
  process.env[webhookEnv.retryDelays] = '1,1';
  process.env[webhookEnv.disableAfterSeconds] = '1';
  api = await startTestApi({ events: true });
  [inventoryOnly, everything, failing] = await Promise.all([
    startWebhookReceiver(),
    startWebhookReceiver(),
    startWebhookReceiver(),
  ]);
  client = `Bearer ${await storeNewKey(api.keys, 'shop-system', unthrottled)}`;
});
cleanUpAfterAll(
  () => api?.close(),
  () => inventoryOnly?.close(),
  () => everything?.close(),
  () => failing?.close(),
);
afterAll(() => {
  delete process.env[webhookEnv.retryDelays];
  delete process.env[webhookEnv.disableAfterSeconds];
});

/** `method path` with the client's key and a JSON body: status and body text. */
function call(method: string, path: string, body?: string) {
  return api.request(method, path, {
    headers: { Authorization: client, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
}

/** Creates an endpoint of the client: its id and secret, from the 201. */
async function createEndpoint(url: string, events?: string[]) {
  const response = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url, ...(events && { events }) }),
  );
  expect(response.status, response.text).toBe(201);
  return JSON.parse(response.text) as { id: string; secret: string };
}

/** How `expect.poll` waits here for a delivery or the breaker: polled every 100 ms, for at most 30 s. */
const polled = { timeout: 30_000, interval: 100 };

/** The webhook-ids `receiver` got a request for. */
const idsOf = (receiver: WebhookReceiver) =>
  new Set(receiver.requests.map((request) => String(request.headers['webhook-id'])));

/** Asserts that `request` verifies with `secret` and is a delivery openapi.yaml declares; returns its type. */
function verified(request: ReceivedRequest, secret: string): string {
  const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
    type: string;
  };
  expect(validateWebhookBody(payload.type, request.body)).toStrictEqual([]);
  return payload.type;
}

const petId = '7532043913479288466';

test('a client creates its own endpoints and receives signed deliveries of its event types; a deleted one receives nothing more', async () => {
  const inventoryEndpoint = await createEndpoint(`${inventoryOnly.endpoint}/hooks`, ['inventory.changed']);
  const allEndpoint = await createEndpoint(`${everything.endpoint}/hooks`);

  // addPet and an order: two changes of the pet and the order placed.
  const added = await call('POST', '/pets', `{"id": ${petId}, "name": "Hooked", "status": "available"}`);
  expect(added.status, added.text).toBe(201);
  expect((await call('PATCH', `/inventory/${petId}`, '{"quantity": 5, "reason": "arrival"}')).status).toBe(
    200,
  );
  const order = await call('POST', '/store/orders', `{"petId": ${petId}, "quantity": 1}`);
  expect(order.status, order.text).toBe(201);
  const orderId = /^\{"id":(\d+),/.exec(order.text)?.[1] as string;
  const inventoryIds = [1, 2, 3].map((sequence) => `inventory.${petId}.${sequence}`);

  await expect
    .poll(() => [...inventoryIds, `order.${orderId}.placed`].every((id) => idsOf(everything).has(id)), {
      ...polled,
      message: 'every event at the endpoint of every type',
    })
    .toBe(true);
  await expect
    .poll(() => inventoryIds.every((id) => idsOf(inventoryOnly).has(id)), {
      ...polled,
      message: 'the inventory events',
    })
    .toBe(true);
  for (const request of everything.requests) verified(request, allEndpoint.secret);
  // The inventory endpoint got inventory events only, each signed with its own secret (not the other's).
  expect(inventoryOnly.requests.map((request) => verified(request, inventoryEndpoint.secret))).toStrictEqual(
    inventoryOnly.requests.map(() => 'inventory.changed'),
  );
  expect(() => verified(inventoryOnly.requests[0] as ReceivedRequest, allEndpoint.secret)).toThrow();
  expect(inventoryOnly.requests[0]?.body).toMatch(new RegExp(`"petId":${petId}[,}]`));

  const deleted = await call('DELETE', `/webhook-endpoints/${inventoryEndpoint.id}`);
  expect([deleted.status, deleted.text]).toStrictEqual([204, '']);
  const before = inventoryOnly.requests.length;
  // The marker: an endpoint created after the delete at another path of the same receiver. The fan-out that
  // sends it the change after the delete decides for the deleted endpoint too, and its delivery takes the
  // same lane to the same receiver.
  const marker = await createEndpoint(`${inventoryOnly.endpoint}/marker`, ['inventory.changed']);
  expect((await call('PATCH', `/inventory/${petId}`, '{"quantity": 9}')).status).toBe(200);
  await expect
    .poll(() => idsOf(everything).has(`inventory.${petId}.4`), {
      ...polled,
      message: 'the change after the delete',
    })
    .toBe(true);
  await expect
    .poll(() => inventoryOnly.requests.length, { ...polled, message: "the marker's delivery" })
    .toBeGreaterThan(before);
  expect(inventoryOnly.requests.slice(before).map((request) => request.path)).toStrictEqual(['/marker']);
  expect(verified(inventoryOnly.requests[before] as ReceivedRequest, marker.secret)).toBe(
    'inventory.changed',
  );
  expect(inventoryOnly.requests[before]?.headers['webhook-id']).toBe(`inventory.${petId}.4`);
  expect(inventoryOnly.requests.filter((request) => request.path === '/hooks')).toHaveLength(before);
  const markerDeleted = await call('DELETE', `/webhook-endpoints/${marker.id}`);
  expect(markerDeleted.status, markerDeleted.text).toBe(204);
}, 120_000);

test('an endpoint failing every attempt is disabled by the breaker; creating its URL again enables it, and it receives, signed with its first secret', async () => {
  failing.answer = { status: 500 };
  const url = `${failing.endpoint}/hooks`;
  const endpoint = await createEndpoint(url, ['inventory.changed']);
  expect((await call('PATCH', `/inventory/${petId}`, '{"quantity": 10}')).status).toBe(200);

  await expect
    .poll(
      async () => {
        const list = JSON.parse((await call('GET', '/webhook-endpoints')).text) as {
          items: { id: string; state: string }[];
        };
        return list.items.some((item) => item.id === endpoint.id && item.state === 'disabled');
      },
      { ...polled, message: 'the breaker disabled the endpoint' },
    )
    .toBe(true);
  const listed = JSON.parse((await call('GET', '/webhook-endpoints')).text).items.find(
    (item: { id: string }) => item.id === endpoint.id,
  );
  expect(listed).toStrictEqual({
    id: endpoint.id,
    url,
    events: ['inventory.changed'],
    state: 'disabled',
    createdAt: expect.any(String),
    failingSince: expect.any(String),
    disabledAt: expect.any(String),
  });

  failing.answer = { status: 204 };
  const again = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url, events: ['inventory.changed'] }),
  );
  expect(again.status, again.text).toBe(200);
  expect(JSON.parse(again.text)).toStrictEqual({
    id: endpoint.id,
    url,
    events: ['inventory.changed'],
    state: 'enabled',
    createdAt: listed.createdAt,
  });
  expect((await call('PATCH', `/inventory/${petId}`, '{"quantity": 11}')).status).toBe(200);
  await expect
    .poll(
      () => failing.requests.some((request) => request.headers['webhook-id'] === `inventory.${petId}.6`),
      {
        ...polled,
        message: 'the delivery after the re-enable',
      },
    )
    .toBe(true);
  const delivered = failing.requests.find(
    (request) => request.headers['webhook-id'] === `inventory.${petId}.6`,
  );
  expect(verified(delivered as ReceivedRequest, endpoint.secret)).toBe('inventory.changed');
}, 120_000);
