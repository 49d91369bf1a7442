/**
 * Least privilege of webhook endpoints at their creation, over HTTP (docs/contract.md "History and events":
 * an endpoint delivers only what its key may read): a key with each scope alone, and each with
 * `webhooks:manage`, creating an endpoint of each event type and of none named; 201 with the types it reads or
 * 403 with the exact body naming the missing scope, and nothing stored on a 403. Keys stored before scopes
 * existed hold every scope. One endpoint per key and URL: concurrent creates of one URL leave one endpoint.
 * A key revoked (with the key tool) or expired while the authorizer's Allow is still cached can neither create
 * an endpoint nor test or re-key one: 401 at once, nothing written. Every response is checked against openapi.yaml. The deliveries are proven in test/events/webhook-privilege.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { type Scope, scopes } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey, keyIdOf } from '#lib/auth/api-key.ts';
import { unauthorizedMessage } from '#lib/http/errors.ts';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { declaredRequest, expectError } from '#test/support/http-assertions.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { testApiSuite, unthrottled } from '#test/support/test-api.ts';

// On disk: the key tool finds the store by DATA_DIR.
const api = testApiSuite({ onDisk: true });

/** The event types each scope lets a key read (docs/contract.md "History and events"). */
const reads: Record<Scope, string[]> = {
  'inventory:read': ['inventory.changed', 'inventory.low_stock'],
  'inventory:write': [],
  'orders:read': ['order.changed'],
  'orders:write': [],
  'events:read': [],
  'webhooks:manage': [],
};

/** The bodies a key creates with: one per event type, and one naming none. */
const namings: [string, string[] | undefined][] = [
  ['inventory.changed', ['inventory.changed']],
  ['inventory.low_stock', ['inventory.low_stock']],
  ['order.changed', ['order.changed']],
  ['no events', undefined],
];

const noneReadable =
  'this API key can read no event type: inventory.changed needs inventory:read, inventory.low_stock needs inventory:read, order.changed needs orders:read';

/** The 403 message for `events` named by a key that reads `readable`, or undefined when it is a 201. */
function refusalFor(events: string[] | undefined, readable: string[]): string | undefined {
  if (events === undefined) return readable.length === 0 ? noneReadable : undefined;
  const [type] = events as [string];
  if (readable.includes(type)) return undefined;
  const scope = type === 'order.changed' ? 'orders:read' : 'inventory:read';
  return `this API key lacks ${scope}: ${type} needs ${scope}`;
}

let urls = 0;
/** A URL no test used before (a public address: the SSRF guard needs no DNS). */
const freshUrl = () => `https://93.184.215.14/privilege/${++urls}`;

/** createWebhookEndpoint with `key`, checked against openapi.yaml. */
const create = (key: string, body: object) =>
  declaredRequest(api, 'POST', '/webhook-endpoints', {
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${key}` },
  });

/** The endpoints table's items, as stored. */
const endpoints = () => api.tableItems('webhookEndpoints');

describe('a key with one scope and without webhooks:manage', () => {
  test.each(scopes.filter((scope) => scope !== 'webhooks:manage'))(
    '%s alone: 403 naming webhooks:manage for every event type, nothing stored',
    async (scope) => {
      const key = await storeNewKey(api.keys, `only-${scope}`, unthrottled, [scope]);
      const before = await endpoints();
      for (const [, events] of namings) {
        expectError(
          await create(key, { url: freshUrl(), ...(events && { events }) }),
          403,
          'forbidden',
          'this API key lacks the scope webhooks:manage that createWebhookEndpoint requires',
        );
      }
      expect(await endpoints()).toEqual(before);
    },
  );
});

describe('a key with webhooks:manage and one scope', () => {
  const rows = scopes.flatMap((scope) => namings.map(([naming, events]) => [scope, naming, events] as const));
  test.each(rows)(
    'webhooks:manage + %s naming %s: 201 with the types it reads, else 403 naming the missing scope',
    async (scope, _naming, events) => {
      const key = await storeNewKey(api.keys, `manage-${scope}`, unthrottled, [
        ...new Set<Scope>(['webhooks:manage', scope]),
      ]);
      const url = freshUrl();
      const before = await endpoints();
      const response = await create(key, { url, ...(events && { events }) });
      const refusal = refusalFor(events, reads[scope]);
      if (refusal !== undefined) {
        expectError(response, 403, 'forbidden', refusal);
        expect(await endpoints()).toEqual(before);
        return;
      }
      expect(response.status, response.text).toBe(201);
      const body = JSON.parse(response.text);
      expect(body.events).toStrictEqual(events ?? reads[scope]);
      const item = (await endpoints()).find((stored) => stored.subscriptionId === body.id);
      expect(item?.events).toBe(JSON.stringify({ L: body.events.map((type: string) => ({ S: type })) }));
    },
  );

  test('inventory:read and orders:read without events: every type; naming both kinds is 201 too', async () => {
    const key = await storeNewKey(api.keys, 'reader', unthrottled, [
      'inventory:read',
      'orders:read',
      'webhooks:manage',
    ]);
    const all = await create(key, { url: freshUrl() });
    expect([all.status, JSON.parse(all.text).events]).toStrictEqual([
      201,
      ['inventory.changed', 'inventory.low_stock', 'order.changed'],
    ]);
    const named = await create(key, { url: freshUrl(), events: ['order.changed', 'inventory.changed'] });
    expect([named.status, JSON.parse(named.text).events]).toStrictEqual([
      201,
      ['order.changed', 'inventory.changed'],
    ]);
  });

  test('inventory:read naming an inventory type and order.changed: 403 naming orders:read, nothing stored', async () => {
    const key = await storeNewKey(api.keys, 'inventory-reader', unthrottled, [
      'inventory:read',
      'webhooks:manage',
    ]);
    const before = await endpoints();
    expectError(
      await create(key, { url: freshUrl(), events: ['inventory.changed', 'order.changed'] }),
      403,
      'forbidden',
      'this API key lacks orders:read: order.changed needs orders:read',
    );
    expect(await endpoints()).toEqual(before);
  });

  test('re-creating its URL naming a type it cannot read is 403 and leaves the endpoint as it was', async () => {
    const key = await storeNewKey(api.keys, 'narrow', unthrottled, ['orders:read', 'webhooks:manage']);
    const url = freshUrl();
    const first = await create(key, { url });
    expect([first.status, JSON.parse(first.text).events]).toStrictEqual([201, ['order.changed']]);
    const before = await endpoints();
    expectError(
      await create(key, { url, events: ['inventory.low_stock'] }),
      403,
      'forbidden',
      'this API key lacks inventory:read: inventory.low_stock needs inventory:read',
    );
    expect(await endpoints()).toEqual(before);
  });
});

test('a key stored before scopes existed holds every scope: its endpoint gets every type', async () => {
  const key = generateApiKey();
  await api.keys.put({ keyDigest: apiKeyDigest(key), name: 'legacy', createdAt: new Date().toISOString() });
  const response = await create(key, { url: freshUrl() });
  expect([response.status, JSON.parse(response.text).events]).toStrictEqual([
    201,
    ['inventory.changed', 'inventory.low_stock', 'order.changed'],
  ]);
});

test('ten concurrent creates of one URL by one key: one endpoint, one 201 and nine 200 with its id', async () => {
  const key = await storeNewKey(api.keys, 'racer', unthrottled);
  const url = freshUrl();
  const answers = await Promise.all(Array.from({ length: 10 }, () => create(key, { url })));
  const statuses = answers.map((answer) => answer.status).sort();
  expect(statuses, answers.map((answer) => answer.text).join('\n')).toStrictEqual([
    200, 200, 200, 200, 200, 200, 200, 200, 200, 201,
  ]);
  const bodies = answers.map((answer) => JSON.parse(answer.text));
  const created = bodies.find((body) => body.secret !== undefined);
  expect(new Set(bodies.map((body) => body.id))).toStrictEqual(new Set([created.id]));
  for (const body of bodies.filter((other) => other !== created)) {
    const { secret: _secret, ...view } = created;
    expect(body).toStrictEqual(view);
  }
  const stored = (await endpoints()).filter((item) => item.url === url);
  expect(stored.map((item) => item.subscriptionId)).toStrictEqual([created.id]);
});

describe('a key revoked or expired while the authorizer still holds its Allow', () => {
  /** The endpoint operations that check the key again, on endpoint `id`, `url` a new one. */
  const checked = (id: string, url: string): [string, string, object | undefined][] => [
    ['POST', '/webhook-endpoints', { url }],
    ['POST', `/webhook-endpoints/${id}/test`, undefined],
    ['POST', `/webhook-endpoints/${id}/rotate-secret`, undefined],
  ];

  /** `method path` with `key` and `body`, checked against openapi.yaml. */
  const send = (key: string, method: string, path: string, body?: object) =>
    declaredRequest(api, method, path, {
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: { Authorization: `Bearer ${key}` },
    });

  /** The webhook tables' items, as stored. */
  const webhookTables = async () => [
    await endpoints(),
    await api.tableItems('webhookEndpointOwners'),
    await api.tableItems('webhookAttempts'),
  ];

  test('keys revoke: createWebhookEndpoint, sendTestWebhook and rotateWebhookSecret answer 401 at once; nothing written', async () => {
    const key = await storeNewKey(api.keys, 'revoked-soon', unthrottled, [
      'inventory:read',
      'webhooks:manage',
    ]);
    // The first request: from here on the authorizer's Allow for this key is cached.
    const first = await create(key, { url: freshUrl() });
    expect(first.status, first.text).toBe(201);
    const { id } = JSON.parse(first.text) as { id: string };
    const revoked = await runNode(scripts.keys, ['revoke', keyIdOf(apiKeyDigest(key))], {
      env: childEnv({ DATA_DIR: api.dataDir }),
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    const before = await webhookTables();
    // The Allow is still cached: an operation that does not check the key again is let through.
    expect((await send(key, 'GET', '/webhook-endpoints')).status).toBe(200);
    for (const [method, path, body] of checked(id, freshUrl())) {
      expectError(await send(key, method, path, body), 401, 'unauthorized', unauthorizedMessage);
    }
    expect(await webhookTables()).toStrictEqual(before);
  });

  test('an expired key: createWebhookEndpoint, sendTestWebhook and rotateWebhookSecret answer 401 at once; nothing written', async () => {
    const key = await storeNewKey(api.keys, 'expires-soon', unthrottled, ['orders:read', 'webhooks:manage']);
    const first = await create(key, { url: freshUrl() });
    expect(first.status, first.text).toBe(201);
    const { id } = JSON.parse(first.text) as { id: string };
    await api.keys.expireBy(apiKeyDigest(key), new Date(Date.now() - 1000));
    const before = await webhookTables();
    for (const [method, path, body] of checked(id, freshUrl())) {
      expectError(await send(key, method, path, body), 401, 'unauthorized', unauthorizedMessage);
    }
    expect(await webhookTables()).toStrictEqual(before);
  });
});
