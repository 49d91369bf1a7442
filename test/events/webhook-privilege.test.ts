/**
 * Least privilege of webhook endpoints at delivery, end to end on the local API serving the synthesized stack with
 * its event path (docs/contract.md "History and events": an endpoint delivers only what its key may read; the
 * fan-out checks the key again at each delivery; revoking a key, or its expiry, disables its endpoints within
 * seconds, re-enabled only by a live key with the scopes; one endpoint per key and URL, so ten concurrent creates
 * of one URL give one delivery per change). Real receivers get the deliveries; nothing is
 * asserted absent after a fixed wait: a marker change made afterwards is waited for first (the fan-out routes each
 * event to all its endpoints at once, and the lanes deliver in order of sending within seconds).
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import type { Scope } from '#lib/api.ts';
import { apiKeyDigest, keyIdOf } from '#lib/auth/api-key.ts';
import { localTableNames } from '#local/settings.ts';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi, unthrottled } from '#test/support/test-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

let api: TestApi;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  api = await startTestApi({ onDisk: true, events: true });
});
cleanUpAfterAll(
  () => api?.close(),
  () => Promise.all(receivers.map((receiver) => receiver.close())),
);

/** How long a delivery may take here: the contract's 5 s, with room for a loaded machine. */
const deliveryMs = 30_000;

/** A new receiver, closed after the suite. */
async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  receivers.push(started);
  return started;
}

/** `method path` with `key` (default the suite's key with every scope) and a JSON body: status and body text. */
function call(method: string, path: string, body?: object, key = api.apiKey) {
  return api.request(method, path, {
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A new key with `scopes` (and webhooks:manage) and its endpoint at `to` (no events named): key, id, endpoint. */
async function endpointOf(to: WebhookReceiver, scopes: readonly Scope[]) {
  const key = await storeNewKey(api.keys, 'client', unthrottled, ['webhooks:manage', ...scopes]);
  const created = await call('POST', '/webhook-endpoints', { url: `${to.endpoint}/hooks` }, key);
  expect(created.status, created.text).toBe(201);
  const endpoint = JSON.parse(created.text) as { id: string; events: string[] };
  return { key, keyId: keyIdOf(apiKeyDigest(key)), endpoint };
}

/** The distinct webhook-ids `to` received. */
const idsAt = (to: WebhookReceiver) =>
  new Set(to.requests.map((request) => String(request.headers['webhook-id'])));

/** Waits until `to` received every one of `ids`. */
async function received(to: WebhookReceiver, ...ids: string[]) {
  await vi.waitFor(
    () => expect([...idsAt(to)].filter((id) => ids.includes(id)).sort()).toStrictEqual([...ids].sort()),
    { timeout: deliveryMs, interval: 100 },
  );
}

let pets = 0;
/** Adds an available pet with 100 in stock (two inventory events, sequences 1 and 2): its id. */
async function stockedPet(): Promise<string> {
  const petId = String(7_100_000 + ++pets);
  expect(
    (await call('POST', '/pets', { id: Number(petId), name: 'Watched', status: 'available' })).status,
  ).toBe(201);
  expect((await call('PATCH', `/inventory/${petId}`, { quantity: 100, reason: 'arrival' })).status).toBe(200);
  return petId;
}

/** Sets `petId`'s stock to `quantity`: the pet's next inventory event. */
async function restock(petId: string, quantity: number) {
  const response = await call('PATCH', `/inventory/${petId}`, { quantity });
  expect(response.status, response.text).toBe(200);
}

/** The webhook tool's `list --json` on the service's data folder, by endpoint id. */
async function toolList(): Promise<Map<string, Record<string, unknown>>> {
  const result = await runNode(scripts.webhooks, ['list', '--json'], {
    env: childEnv({ DATA_DIR: api.dataDir }),
  });
  expect(result.code, result.stderr).toBe(0);
  const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
  return new Map(rows.map((row) => [String(row.id), row]));
}

/** Sets the stored scopes of the key `key` (as an operator editing its record would). */
async function setScopes(key: string, scopes: readonly Scope[]) {
  await api.dynamoDb.send(
    new UpdateItemCommand({
      TableName: localTableNames().apiKeys,
      Key: { keyDigest: { S: apiKeyDigest(key) } },
      UpdateExpression: 'SET scopes = :s',
      ExpressionAttributeValues: { ':s': { L: scopes.map((scope) => ({ S: scope })) } },
    }),
  );
}

describe('which events each key receives', () => {
  test('inventory:read gets the inventory events only, orders:read the order events only, both every event', async () => {
    const [inventoryAt, ordersAt, bothAt] = await Promise.all([receiver(), receiver(), receiver()]);
    const inventory = await endpointOf(inventoryAt, ['inventory:read']);
    const orders = await endpointOf(ordersAt, ['orders:read']);
    const both = await endpointOf(bothAt, ['inventory:read', 'orders:read']);
    expect([inventory.endpoint.events, orders.endpoint.events, both.endpoint.events]).toStrictEqual([
      ['inventory.changed', 'inventory.low_stock'],
      ['order.changed'],
      ['inventory.changed', 'inventory.low_stock', 'order.changed'],
    ]);

    const petId = await stockedPet();
    const placed = await call('POST', '/store/orders', { petId: Number(petId), quantity: 1 });
    expect(placed.status, placed.text).toBe(201);
    const orderId = /^\{"id":(\d+),/.exec(placed.text)?.[1] as string;
    // Markers after the order: one more change of each kind, which the endpoints that read it must get.
    await restock(petId, 50);
    const approved = await call('PATCH', `/store/orders/${orderId}`, { status: 'approved' });
    expect(approved.status, approved.text).toBe(200);

    const inventoryIds = [1, 2, 3, 4].map((sequence) => `inventory.${petId}.${sequence}`);
    const orderIds = [`order.${orderId}.placed`, `order.${orderId}.approved`];
    await received(bothAt, ...inventoryIds, ...orderIds);
    await received(inventoryAt, ...inventoryIds);
    await received(ordersAt, ...orderIds);
    expect(idsAt(inventoryAt)).toStrictEqual(new Set(inventoryIds));
    expect(idsAt(ordersAt)).toStrictEqual(new Set(orderIds));
    expect(idsAt(bothAt)).toStrictEqual(new Set([...inventoryIds, ...orderIds]));
  }, 120_000);

  test('a key that no longer holds orders:read: its endpoint of every type gets nothing more and is disabled (scope_missing); with the scope back, creating its URL again enables it', async () => {
    const [keptAt, narrowedAt] = await Promise.all([receiver(), receiver()]);
    await endpointOf(keptAt, ['inventory:read', 'orders:read']);
    const narrowed = await endpointOf(narrowedAt, ['inventory:read', 'orders:read']);
    const petId = await stockedPet();
    await received(narrowedAt, `inventory.${petId}.2`);

    await setScopes(narrowed.key, ['inventory:read', 'webhooks:manage']);
    await restock(petId, 60);
    await restock(petId, 61);
    // The marker: the last change reached the endpoint of the unchanged key.
    await received(keptAt, `inventory.${petId}.3`, `inventory.${petId}.4`);
    const disabled = (await toolList()).get(narrowed.endpoint.id);
    expect(disabled).toMatchObject({
      state: 'disabled',
      disabledReason: 'scope_missing',
      owner: narrowed.keyId,
    });
    expect(idsAt(narrowedAt)).toStrictEqual(new Set([`inventory.${petId}.1`, `inventory.${petId}.2`]));

    await setScopes(narrowed.key, ['inventory:read', 'orders:read', 'webhooks:manage']);
    const again = await call(
      'POST',
      '/webhook-endpoints',
      { url: `${narrowedAt.endpoint}/hooks` },
      narrowed.key,
    );
    expect([again.status, JSON.parse(again.text).state]).toStrictEqual([200, 'enabled']);
    expect((await toolList()).get(narrowed.endpoint.id)).toMatchObject({
      state: 'enabled',
      disabledReason: null,
    });
    await restock(petId, 62);
    await received(narrowedAt, `inventory.${petId}.5`);
  }, 120_000);
});

describe('revocation and expiry', () => {
  test('keys revoke mid-stream: the endpoint is disabled at once (key_revoked) and gets no change committed after it', async () => {
    const [revokedAt, controlAt] = await Promise.all([receiver(), receiver()]);
    const revoked = await endpointOf(revokedAt, ['inventory:read', 'orders:read']);
    await endpointOf(controlAt, ['inventory:read']);
    const petId = await stockedPet();

    // Deliveries flow: a change every 100 ms until the revocation is done.
    let streaming = true;
    let quantity = 0;
    const stream = (async () => {
      while (streaming) {
        await restock(petId, ++quantity);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await vi.waitFor(() => expect(idsAt(revokedAt).size).toBeGreaterThanOrEqual(5), {
      timeout: deliveryMs,
      interval: 100,
    });

    const result = await runNode(scripts.keys, ['revoke', revoked.keyId], {
      env: childEnv({ DATA_DIR: api.dataDir }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `Disabled 1 webhook endpoint(s) of the revoked key(s): ${revoked.endpoint.id}.\n`,
    );
    // Every change from here on was committed after the revocation.
    const history = await call('GET', `/inventory/${petId}/history?limit=1`);
    const lastBefore = (JSON.parse(history.text) as { sequence: number }[])[0]?.sequence as number;
    const listed = (await toolList()).get(revoked.endpoint.id);
    expect(listed).toMatchObject({ state: 'disabled', disabledReason: 'key_revoked', owner: revoked.keyId });
    // The stream goes on past the revocation: the control endpoint gets two changes committed after it.
    await vi.waitFor(
      () => expect([...idsAt(controlAt)].some((id) => Number(id.split('.')[2]) > lastBefore + 1)).toBe(true),
      { timeout: deliveryMs, interval: 100 },
    );
    streaming = false;
    await stream;
    // The marker: the stream's last change reached the control endpoint.
    await restock(petId, 1_000);
    const marker = `inventory.${petId}.${quantity + 3}`;
    await received(controlAt, marker);

    const after = [...idsAt(revokedAt)].filter((id) => Number(id.split('.')[2]) > lastBefore);
    expect(after).toStrictEqual([]);
    // The revoked key, still accepted from the authorizer's cache, cannot re-enable it.
    const again = await call(
      'POST',
      '/webhook-endpoints',
      { url: `${revokedAt.endpoint}/hooks` },
      revoked.key,
    );
    expect([again.status, again.text]).toStrictEqual([
      401,
      '{"code":"unauthorized","message":"a valid API key is required: send Authorization: Bearer <API_KEY>","status":401}',
    ]);
    expect((await toolList()).get(revoked.endpoint.id)).toMatchObject({ state: 'disabled' });
  }, 120_000);

  test('an expired key: its endpoint gets no change after the expiry and is disabled (key_expired)', async () => {
    const [expiredAt, controlAt] = await Promise.all([receiver(), receiver()]);
    const expired = await endpointOf(expiredAt, ['inventory:read']);
    await endpointOf(controlAt, ['inventory:read']);
    const petId = await stockedPet();
    await received(expiredAt, `inventory.${petId}.1`, `inventory.${petId}.2`);

    await api.keys.expireBy(apiKeyDigest(expired.key), new Date(Date.now() - 1000));
    await restock(petId, 70);
    await restock(petId, 71);
    await received(controlAt, `inventory.${petId}.3`, `inventory.${petId}.4`);

    expect((await toolList()).get(expired.endpoint.id)).toMatchObject({
      state: 'disabled',
      disabledReason: 'key_expired',
      owner: expired.keyId,
    });
    expect(idsAt(expiredAt)).toStrictEqual(new Set([`inventory.${petId}.1`, `inventory.${petId}.2`]));
  }, 120_000);
});

test('ten concurrent creates of one URL by one key: one endpoint, so each change is delivered signed with the one secret of the 201', async () => {
  const at = await receiver();
  const key = await storeNewKey(api.keys, 'racer', unthrottled);
  const url = `${at.endpoint}/hooks`;
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => call('POST', '/webhook-endpoints', { url }, key)),
  );
  const created = answers.filter((answer) => answer.status === 201);
  expect(created).toHaveLength(1);
  const { id, secret } = JSON.parse(created[0]?.text ?? '') as { id: string; secret: string };
  expect(
    answers.filter((answer) => answer.status === 200).map((answer) => JSON.parse(answer.text).id),
  ).toStrictEqual(Array.from({ length: 9 }, () => id));

  const petId = await stockedPet();
  await restock(petId, 80);
  await received(at, `inventory.${petId}.1`, `inventory.${petId}.2`, `inventory.${petId}.3`);
  // Another endpoint of that URL would sign with its own secret: every request verifies with this one.
  for (const request of at.requests) {
    expect(() =>
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
    ).not.toThrow();
  }
  const listed = JSON.parse((await call('GET', '/webhook-endpoints', undefined, key)).text) as {
    items: { id: string }[];
  };
  expect(listed.items.map((item) => item.id)).toStrictEqual([id]);
}, 120_000);
