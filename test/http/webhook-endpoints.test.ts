/**
 * Webhook endpoints through the API over HTTP (docs/contract.md "History and events"): createWebhookEndpoint
 * (the secret shown once, the SSRF guard's refusals, bad bodies, 20 per key also under concurrency, the same URL
 * again re-enables), listWebhookEndpoints (own only, never a secret), deleteWebhookEndpoint (204; another key's
 * is 404 and stays), the scope, and ownership across `keys rotate`. Every response is checked against
 * openapi.yaml; the tables are read raw.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, test } from 'vitest';
import { rotateKey } from '#lib/admin/keys.ts';
import { scopes } from '#lib/api.ts';
import { apiKeyDigest, keyIdOf } from '#lib/auth/api-key.ts';
import { localTableNames } from '#local/settings.ts';
import { declaredRequest, expectError } from '#test/support/http-assertions.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { type TestResponse, testApiSuite, unthrottled } from '#test/support/test-api.ts';

const api = testApiSuite();

const idFormat = /^ws_[A-Za-z0-9_-]{16}$/;
const secretFormat = /^whsec_[A-Za-z0-9+/]{32}$/;
const timeFormat = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Every event type an endpoint can name: the default of a key that reads them all. */
const everyType = ['inventory.changed', 'inventory.low_stock', 'order.changed'];
// URLs that pass the SSRF guard name a public address: a host name would need DNS, which a test machine may lack.

/** A new key with every scope (its own endpoints), as `Bearer <key>`, and its id. */
async function newClient(name: string): Promise<{ authorization: string; keyId: string; key: string }> {
  const key = await storeNewKey(api.keys, name, unthrottled);
  return { authorization: `Bearer ${key}`, keyId: keyIdOf(apiKeyDigest(key)), key };
}

const create = (body: string, authorization = api.authorization) =>
  declaredRequest(api, 'POST', '/webhook-endpoints', { body, headers: { Authorization: authorization } });
const list = (authorization = api.authorization) =>
  declaredRequest(api, 'GET', '/webhook-endpoints', { headers: { Authorization: authorization } });
const remove = (id: string, authorization = api.authorization) =>
  declaredRequest(api, 'DELETE', `/webhook-endpoints/${id}`, { headers: { Authorization: authorization } });

/** The endpoints and owner items as stored. */
async function stored() {
  return {
    endpoints: await api.tableItems('webhookEndpoints'),
    owners: await api.tableItems('webhookEndpointOwners'),
  };
}

/** The endpoint ids of `ownerKeyId`'s item in the owners table, sorted. */
async function ownedIds(ownerKeyId: string): Promise<string[]> {
  const owner = (await api.tableItems('webhookEndpointOwners')).find(
    (item) => item.ownerKeyId === ownerKeyId,
  );
  return owner?.endpointIds ? (JSON.parse(owner.endpointIds) as { SS: string[] }).SS.sort() : [];
}

/** The id of a 201 or 200 answer. */
const idOf = (response: TestResponse) => (JSON.parse(response.text) as { id: string }).id;

describe('createWebhookEndpoint', () => {
  test('answers 201 with the endpoint, its whsec_ secret (shown once) and Location, and stores it owned by the key', async () => {
    const client = await newClient('creator');
    const response = await create('{"url": "https://93.184.215.14/hooks"}', client.authorization);

    expect(response.status, response.text).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(response.text);
    expect(Object.keys(body)).toEqual(['id', 'url', 'events', 'state', 'createdAt', 'secret']);
    expect(body).toEqual({
      id: expect.stringMatching(idFormat),
      url: 'https://93.184.215.14/hooks',
      events: everyType,
      state: 'enabled',
      createdAt: expect.stringMatching(timeFormat),
      secret: expect.stringMatching(secretFormat),
    });
    expect(response.headers.get('location')).toBe(`/v1/webhook-endpoints/${body.id}`);
    const item = (await api.tableItems('webhookEndpoints')).find((s) => s.subscriptionId === body.id);
    expect(item).toEqual({
      subscriptionId: body.id,
      url: 'https://93.184.215.14/hooks',
      events: JSON.stringify({ L: everyType.map((type) => ({ S: type })) }),
      secret: body.secret,
      createdAt: body.createdAt,
      state: 'enabled',
      ownerKeyId: client.keyId,
    });
    expect(await ownedIds(client.keyId)).toEqual([body.id]);
  });

  test('takes the event types asked for', async () => {
    const response = await create('{"url": "https://93.184.215.14/orders", "events": ["order.changed"]}');
    expect(response.status).toBe(201);
    expect(JSON.parse(response.text).events).toEqual(['order.changed']);
  });

  test('takes http://127.0.0.1 and http://localhost locally, as the webhook tool does', async () => {
    for (const url of ['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks']) {
      const response = await create(JSON.stringify({ url }));
      expect([response.status, JSON.parse(response.text).url]).toEqual([201, url]);
    }
  });

  test.each([
    ['https://10.0.0.8/hooks', 'https://10.0.0.8/hooks: 10.0.0.8 is not a public address (private)'],
    [
      'https://169.254.169.254/latest',
      'https://169.254.169.254/latest: 169.254.169.254 is not a public address (linkLocal)',
    ],
    ['https://192.168.1.1/', 'https://192.168.1.1/: 192.168.1.1 is not a public address (private)'],
    ['https://[fd00::1]/', 'https://[fd00::1]/: fd00::1 is not a public address (uniqueLocal)'],
    [
      'https://[::ffff:10.0.0.1]/',
      'https://[::ffff:10.0.0.1]/: ::ffff:a00:1 is not a public address (private)',
    ],
    ['https://0.0.0.0/', 'https://0.0.0.0/: 0.0.0.0 is not a public address (unspecified)'],
    ['https://127.0.0.2/', 'https://127.0.0.2/: 127.0.0.2 is not a public address (loopback)'],
    [
      'http://example.com/hooks',
      'http://example.com/hooks: webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)',
    ],
    [
      'ftp://127.0.0.1/',
      'ftp://127.0.0.1/: webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)',
    ],
    ['https://user:pw@example.com/', 'https://user:pw@example.com/: credentials in the URL'],
    ['/hooks', '"/hooks" is not an absolute URL'],
  ])('refuses %s with 400 naming why, and stores nothing', async (url, why) => {
    const before = await stored();
    expectError(await create(JSON.stringify({ url })), 400, 'invalid_request', `url refused: ${why}`);
    expect(await stored()).toEqual(before);
  });

  const urlMessage = 'url must be a string of 1 to 2000 characters such as https://example.com/hooks';
  const notObject = 'request body must be a JSON object such as {"url": "https://example.com/hooks"}';
  const types = 'the types are inventory.changed, inventory.low_stock, order.changed';
  test.each([
    ['not an object', '["https://example.com"]', notObject],
    ['a string', '"https://example.com"', notObject],
    ['no url', '{"events": ["order.changed"]}', urlMessage],
    ['a number as url', '{"url": 7}', urlMessage],
    ['an empty url', '{"url": ""}', urlMessage],
    [
      'a url of 2001 characters',
      JSON.stringify({ url: `https://example.com/${'a'.repeat(1981)}` }),
      urlMessage,
    ],
    [
      'an unknown member',
      '{"url": "https://example.com", "secret": "whsec_x"}',
      'a webhook endpoint may only contain url, events; not allowed: "secret"',
    ],
    [
      'events empty',
      '{"url": "https://example.com", "events": []}',
      `events must be a non-empty array of event types: ${types}`,
    ],
    [
      'events not an array',
      '{"url": "https://example.com", "events": "order.changed"}',
      `events must be a non-empty array of event types: ${types}`,
    ],
    [
      'an unknown event type',
      '{"url": "https://example.com", "events": ["pet.deleted"]}',
      `events holds what is not an event type: "pet.deleted"; ${types}`,
    ],
    [
      'a number among the types',
      '{"url": "https://example.com", "events": [1]}',
      `events holds what is not an event type; ${types}`,
    ],
    [
      'a type twice',
      '{"url": "https://example.com", "events": ["order.changed", "order.changed"]}',
      'events lists an event type twice',
    ],
    [
      'a member twice',
      '{"url": "https://a.example", "url": "https://example.com"}',
      'request body member "url" appears twice in one object',
    ],
    ['not JSON', '{"url": ', 'request body must be valid JSON'],
  ])('refuses a body with %s with 400 and stores nothing', async (_case, body, message) => {
    const before = await stored();
    expectError(await create(body), 400, 'invalid_request', message);
    expect(await stored()).toEqual(before);
  });

  test('creating a URL the key already holds answers 200 with that endpoint, without its secret, enabled again and with the events asked for', async () => {
    const client = await newClient('re-enabler');
    const first = await create('{"url": "https://93.184.215.14/again"}', client.authorization);
    const id = idOf(first);
    // The breaker disabled it (docs/architecture.md "Events and webhooks").
    await api.dynamoDb.send(
      new UpdateItemCommand({
        TableName: localTableNames().webhookEndpoints,
        Key: { subscriptionId: { S: id } },
        UpdateExpression: 'SET #s = :d, failingSince = :f, disabledAt = :t',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: {
          ':d': { S: 'disabled' },
          ':f': { S: '2026-11-20T10:00:00.000Z' },
          ':t': { S: '2026-11-25T10:00:00.000Z' },
        },
      }),
    );

    const again = await create(
      '{"url": "https://93.184.215.14/again", "events": ["order.changed"]}',
      client.authorization,
    );

    expect(again.status, again.text).toBe(200);
    const createdAt = JSON.parse(first.text).createdAt;
    expect(again.text).toBe(
      JSON.stringify({
        id,
        url: 'https://93.184.215.14/again',
        events: ['order.changed'],
        state: 'enabled',
        createdAt,
      }),
    );
    expect(again.headers.get('location')).toBe(`/v1/webhook-endpoints/${id}`);
    const item = (await api.tableItems('webhookEndpoints')).find((s) => s.subscriptionId === id);
    expect(item).toMatchObject({ state: 'enabled', secret: JSON.parse(first.text).secret });
    expect(item).not.toHaveProperty('disabledAt');
    expect(item).not.toHaveProperty('failingSince');
    expect(await ownedIds(client.keyId)).toEqual([id]);
  });
});

describe('20 endpoints per key', () => {
  const limitReached = 'this API key already holds 20 webhook endpoints: delete one before creating another';

  test('the 21st is 409 limit_reached and changes nothing; after a delete there is room for one', async () => {
    const client = await newClient('twenty');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await create(
        JSON.stringify({ url: `https://93.184.215.14/${i}` }),
        client.authorization,
      );
      expect(response.status, response.text).toBe(201);
      ids.push(idOf(response));
    }
    const before = await stored();
    expectError(
      await create('{"url": "https://93.184.215.14/20"}', client.authorization),
      409,
      'limit_reached',
      limitReached,
    );
    expect(await stored()).toEqual(before);
    // Another key is not held to this key's 20.
    expect((await create('{"url": "https://93.184.215.14/20"}')).status).toBe(201);

    expect((await remove(ids[0] as string, client.authorization)).status).toBe(204);
    expect((await create('{"url": "https://93.184.215.14/20"}', client.authorization)).status).toBe(201);
    expect(await ownedIds(client.keyId)).toHaveLength(20);
  });

  test('25 concurrent creates with one key leave exactly 20 endpoints; the other 5 are 409 limit_reached', async () => {
    const client = await newClient('concurrent');
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        api.request('POST', '/webhook-endpoints', {
          headers: { Authorization: client.authorization, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: `https://93.184.215.14/c${i}` }),
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(20).fill(201), ...Array(5).fill(409)]);
    for (const refused of answers.filter((answer) => answer.status === 409)) {
      expectError(refused, 409, 'limit_reached', limitReached);
    }
    const created = answers
      .filter((answer) => answer.status === 201)
      .map(idOf)
      .sort();
    expect(await ownedIds(client.keyId)).toEqual(created);
    const owned = (await api.tableItems('webhookEndpoints')).filter((s) => s.ownerKeyId === client.keyId);
    expect(owned.map((s) => s.subscriptionId).sort()).toEqual(created);
  });
});

describe('listWebhookEndpoints', () => {
  test("lists the key's own endpoints, oldest first, never a secret nor another key's", async () => {
    const mine = await newClient('lister');
    const other = await newClient('other-lister');
    const first = await create('{"url": "https://93.184.215.14/first"}', mine.authorization);
    await create('{"url": "https://93.184.215.14/theirs"}', other.authorization);
    const second = await create(
      '{"url": "https://93.184.215.14/second", "events": ["inventory.changed"]}',
      mine.authorization,
    );
    const view = (response: TestResponse) => {
      const { secret: _secret, ...rest } = JSON.parse(response.text);
      return rest;
    };

    const response = await list(mine.authorization);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe(JSON.stringify({ items: [view(first), view(second)] }));
    expect(response.text).not.toContain('whsec_');
  });

  test('answers {"items": []} for a key without endpoints', async () => {
    const client = await newClient('empty-lister');
    expect((await list(client.authorization)).text).toBe('{"items":[]}');
  });
});

describe('deleteWebhookEndpoint', () => {
  test('answers 204 without a body and removes the endpoint and its id from the owner', async () => {
    const client = await newClient('deleter');
    const id = idOf(await create('{"url": "https://93.184.215.14/gone"}', client.authorization));

    const response = await remove(id, client.authorization);

    expect([response.status, response.text]).toEqual([204, '']);
    expect((await api.tableItems('webhookEndpoints')).map((s) => s.subscriptionId)).not.toContain(id);
    expect(await ownedIds(client.keyId)).toEqual([]);
    expect((await list(client.authorization)).text).toBe('{"items":[]}');
    expectError(
      await remove(id, client.authorization),
      404,
      'not_found',
      `this API key holds no webhook endpoint ${id}`,
    );
  });

  test("another key's endpoint is 404 with the same body as none, and stays", async () => {
    const owner = await newClient('owner');
    const id = idOf(await create('{"url": "https://93.184.215.14/kept"}', owner.authorization));
    const before = await stored();

    expectError(await remove(id), 404, 'not_found', `this API key holds no webhook endpoint ${id}`);
    expectError(
      await remove('ws_AAAAAAAAAAAAAAAA'),
      404,
      'not_found',
      'this API key holds no webhook endpoint ws_AAAAAAAAAAAAAAAA',
    );

    expect(await stored()).toEqual(before);
    expect(JSON.parse((await list(owner.authorization)).text).items.map((e: { id: string }) => e.id)).toEqual(
      [id],
    );
  });

  test.each(['abc', 'ws_short', 'ws_AAAAAAAAAAAAAAAAA', 'ws_AAAAAAAA%2FAAAAAAA'])(
    'refuses the endpointId %s with 400',
    async (id) => {
      expectError(
        await remove(id),
        400,
        'invalid_request',
        'endpointId must be ws_ followed by 16 letters, digits, - or _ (as createWebhookEndpoint answers it)',
      );
    },
  );
});

describe('ownership', () => {
  test('a key made by keys rotate keeps the endpoints of the key it replaces: lists them, re-creates none, deletes them', async () => {
    const old = await newClient('rotating');
    const id = idOf(await create('{"url": "https://93.184.215.14/rotated"}', old.authorization));
    const now = new Date();
    const options = { now, graceEnd: new Date(now.getTime() + 3_600_000), allScopes: scopes };
    const once = await rotateKey(api.keys, old.keyId, options);
    const twice = await rotateKey(api.keys, once.newId, options);
    const rotated = `Bearer ${twice.apiKey}`;

    const listed = JSON.parse((await list(rotated)).text).items;
    expect(listed.map((e: { id: string }) => e.id)).toEqual([id]);
    // The same URL is the same endpoint for the rotated key.
    const again = await create('{"url": "https://93.184.215.14/rotated"}', rotated);
    expect([again.status, idOf(again)]).toEqual([200, id]);
    expect((await remove(id, rotated)).status).toBe(204);
    expect(await ownedIds(old.keyId)).toEqual([]);
  });

  test('a key without webhooks:manage gets 403 forbidden on each operation and nothing changes', async () => {
    const key = await storeNewKey(api.keys, 'no-webhooks', unthrottled, [
      'inventory:read',
      'inventory:write',
      'orders:read',
      'orders:write',
    ]);
    const id = idOf(await create('{"url": "https://93.184.215.14/scoped"}'));
    const before = await stored();
    for (const [operation, send] of [
      ['createWebhookEndpoint', () => create('{"url": "https://93.184.215.14/x"}', `Bearer ${key}`)],
      ['listWebhookEndpoints', () => list(`Bearer ${key}`)],
      ['deleteWebhookEndpoint', () => remove(id, `Bearer ${key}`)],
    ] as const) {
      expectError(
        await send(),
        403,
        'forbidden',
        `this API key lacks the scope webhooks:manage that ${operation} requires`,
      );
    }
    expect(await stored()).toEqual(before);
  });
});
