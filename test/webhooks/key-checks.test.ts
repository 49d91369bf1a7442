/**
 * The endpoint operations' own checks on an embedded DynamoDB (docs/contract.md "History and events"): the live
 * check of the calling key (lib/webhooks/live-caller.ts: revoked or expired within the authorizer's cache is
 * refused) and rotateWebhookSecret's write (lib/webhooks/secret-rotation.ts: the previous secret kept 24 hours,
 * the owner's endpoint only) and the ownership check of the operations on one endpoint
 * (lib/webhooks/owned-endpoint.ts: 404 for another key's).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { liveCallerCheck } from '#lib/webhooks/live-caller.ts';
import { requireOwnedEndpoint } from '#lib/webhooks/owned-endpoint.ts';
import { rotateSecret } from '#lib/webhooks/secret-rotation.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
});
afterAll(() => db?.close());

const now = new Date('2026-12-08T10:00:00.000Z');

describe('the live check of the calling key', () => {
  const unauthorized = {
    body: {
      code: 'unauthorized',
      message: 'a valid API key is required: send Authorization: Bearer <API_KEY>',
      status: 401,
    },
  };
  const keys = {
    active: generateApiKey(),
    revoked: generateApiKey(),
    expired: generateApiKey(),
    unknown: generateApiKey(),
  };
  /** A request whose single-value headers carry `authorization` (none when undefined). */
  const request = (authorization: string | undefined) => ({
    headers: authorization === undefined ? {} : { Authorization: authorization },
    multiValueHeaders: {},
  });

  /** Stores the key `key` with these attributes besides its digest and creation time. */
  const put = (key: string, rest: Record<string, string>) =>
    db.client.send(
      new PutItemCommand({
        TableName: testTableNames.apiKeys,
        Item: marshall({ keyDigest: apiKeyDigest(key), createdAt: '2026-12-01T00:00:00.000Z', ...rest }),
      }),
    );

  beforeAll(async () => {
    await put(keys.active, { expiresAt: '2026-12-08T10:00:01.000Z' });
    await put(keys.revoked, { revokedAt: '2026-12-08T09:59:59.000Z' });
    await put(keys.expired, { expiresAt: '2026-12-08T10:00:00.000Z' });
  });

  test('an active key passes', async () => {
    const check = liveCallerCheck(db.client, testTableNames.apiKeys);
    await expect(check(request(`Bearer ${keys.active}`), now)).resolves.toBeUndefined();
  });

  test('a key revoked, expired at this instant, unknown, or no bearer key at all: 401', async () => {
    const check = liveCallerCheck(db.client, testTableNames.apiKeys);
    for (const authorization of [
      `Bearer ${keys.revoked}`,
      `Bearer ${keys.expired}`,
      `Bearer ${keys.unknown}`,
      `Basic ${keys.active}`,
      undefined,
    ]) {
      await expect(check(request(authorization), now)).rejects.toMatchObject(unauthorized);
    }
  });

  test('without a time, the time of the call: a key that expired a minute ago is refused, one without expiry passes', async () => {
    const [lapsed, lasting] = [generateApiKey(), generateApiKey()];
    await put(lapsed, { expiresAt: new Date(Date.now() - 60_000).toISOString() });
    await put(lasting, {});
    const check = liveCallerCheck(db.client, testTableNames.apiKeys);
    await expect(check(request(`Bearer ${lapsed}`))).rejects.toMatchObject(unauthorized);
    await expect(check(request(`Bearer ${lasting}`))).resolves.toBeUndefined();
  });
});

describe("rotateWebhookSecret's write", () => {
  const endpointId = 'ws_ROTATED00000001';
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  beforeAll(async () => {
    await db.client.send(
      new PutItemCommand({
        TableName: testTableNames.webhookEndpoints,
        Item: marshall({
          subscriptionId: endpointId,
          url: 'https://hooks.example.com/',
          events: ['inventory.changed'],
          secret,
          ownerKeyId: 'aaaaaaaaaaaa',
          createdAt: '2026-12-01T00:00:00.000Z',
          state: 'enabled',
        }),
      }),
    );
  });

  const stored = async () =>
    (await scanTable(db.client, testTableNames.webhookEndpoints)).find(
      (i) => i.subscriptionId?.S === endpointId,
    );

  test("another key's endpoint, or none: undefined, nothing written", async () => {
    await expect(
      rotateSecret(db.client, testTableNames.webhookEndpoints, 'bbbbbbbbbbbb', endpointId, now),
    ).resolves.toBeUndefined();
    await expect(
      rotateSecret(db.client, testTableNames.webhookEndpoints, 'aaaaaaaaaaaa', 'ws_NONE000000000001', now),
    ).resolves.toBeUndefined();
    expect((await stored())?.secret).toStrictEqual({ S: secret });
    expect(await stored()).not.toHaveProperty('previousSecret');
  });

  test('the owner: a new secret, the previous one kept until 24 hours later', async () => {
    const rotated = await rotateSecret(
      db.client,
      testTableNames.webhookEndpoints,
      'aaaaaaaaaaaa',
      endpointId,
      now,
    );
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await stored()).toMatchObject({
      secret: { S: rotated },
      previousSecret: { S: secret },
      previousSecretExpiresAt: { S: '2026-12-09T10:00:00.000Z' },
    });
  });
});

describe("the operations on one endpoint: the caller's own only", () => {
  const table = testTableNames.webhookEndpoints;

  beforeAll(async () => {
    const put = (id: string, rest: Record<string, unknown>) =>
      db.client.send(
        new PutItemCommand({
          TableName: table,
          Item: marshall({
            subscriptionId: id,
            url: 'https://hooks.example.com/',
            secret: 'whsec_x',
            ...rest,
          }),
        }),
      );
    await put('ws_OWNED0000000001', {
      events: ['order.changed', 'inventory.changed'],
      ownerKeyId: 'cccccccccccc',
      createdAt: '2026-12-01T00:00:00.000Z',
    });
    await put('ws_OWNED0000000002', { ownerKeyId: 'cccccccccccc' });
    await put('ws_TOOLS0000000001', { events: ['order.changed'], createdAt: '2026-12-01T00:00:00.000Z' });
  });

  test('its event types and creation time, never more', async () => {
    await expect(
      requireOwnedEndpoint(db.client, table, 'cccccccccccc', 'ws_OWNED0000000001'),
    ).resolves.toStrictEqual({
      events: ['order.changed', 'inventory.changed'],
      createdAt: '2026-12-01T00:00:00.000Z',
    });
    await expect(
      requireOwnedEndpoint(db.client, table, 'cccccccccccc', 'ws_OWNED0000000002'),
    ).resolves.toStrictEqual({
      events: [],
    });
  });

  test("another key's, the tool's, or none: 404", async () => {
    for (const [owner, id] of [
      ['dddddddddddd', 'ws_OWNED0000000001'],
      ['cccccccccccc', 'ws_TOOLS0000000001'],
      ['cccccccccccc', 'ws_NONE000000000001'],
    ] as const) {
      await expect(requireOwnedEndpoint(db.client, table, owner, id)).rejects.toMatchObject({
        body: { code: 'not_found', message: `this API key holds no webhook endpoint ${id}`, status: 404 },
      });
    }
  });
});
