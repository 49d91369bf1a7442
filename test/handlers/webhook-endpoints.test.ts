/**
 * functions/create-webhook-endpoint, list-webhook-endpoints and delete-webhook-endpoint invoked in this process
 * with REST proxy events against a real DynamoDB API (dynalite) behind the fault proxy (docs/contract.md
 * "History and events"): the owner is the authorizer context's `firstKeyId` (the key's own `keyId` without
 * one), and a transaction DynamoDB cancels for a `TransactionConflict` with another write of the same key is
 * tried again, five times in all, then answered 503 with nothing written.
 */

import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { lambdaContext } from '@pet-store/local-aws';
import type { TestStore } from '@pet-store/local-aws/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { type FaultProxy, proxiedTestDynamoDb } from '#test/support/dynamodb-fault-proxy.ts';
import { type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import { type RawItem, scanTable } from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let proxy: FaultProxy;
let create: ProxyHandler;
let list: ProxyHandler;
let remove: ProxyHandler;
/** The bearer key of every request: stored and active, as createWebhookEndpoint's live-caller check reads it. */
const callerKey = generateApiKey();

beforeAll(async () => {
  ({ db, proxy } = await proxiedTestDynamoDb());
  await db.client.send(
    new PutItemCommand({
      TableName: testTableNames.apiKeys,
      Item: { keyDigest: { S: apiKeyDigest(callerKey) }, createdAt: { S: new Date().toISOString() } },
    }),
  );
  process.env.WEBHOOK_ENDPOINTS_TABLE_NAME = testTableNames.webhookEndpoints;
  process.env.WEBHOOK_ENDPOINT_OWNERS_TABLE_NAME = testTableNames.webhookEndpointOwners;
  process.env.WEBHOOK_URL_POLICY = 'local';
  create = (await import('#functions/create-webhook-endpoint/handler.ts')).handler;
  list = (await import('#functions/list-webhook-endpoints/handler.ts')).handler;
  remove = (await import('#functions/delete-webhook-endpoint/handler.ts')).handler;
});
afterAll(async () => {
  await proxy?.close();
  await db?.close();
});
beforeEach(() => {
  proxy.restore();
});

/** The authorizer context of a key `keyId` whose rotation chain starts at `firstKeyId` (absent: none sent). */
function asKey<E extends { requestContext: { authorizer?: Record<string, unknown> | null } }>(
  event: E,
  keyId: string,
  firstKeyId?: string,
): E {
  const { firstKeyId: _first, ...context } = event.requestContext.authorizer ?? {};
  event.requestContext.authorizer = { ...context, keyId, ...(firstKeyId && { firstKeyId }) };
  return event;
}

const createEvent = (url: string) =>
  restProxyEvent({
    method: 'POST',
    resource: '/webhook-endpoints',
    path: '/webhook-endpoints',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${callerKey}` },
    body: JSON.stringify({ url }),
  });
const listEvent = () =>
  restProxyEvent({ method: 'GET', resource: '/webhook-endpoints', path: '/webhook-endpoints' });
const deleteEvent = (endpointId: string) =>
  restProxyEvent({
    method: 'DELETE',
    resource: '/webhook-endpoints/{endpointId}',
    path: `/webhook-endpoints/${endpointId}`,
    pathParameters: { endpointId },
  });

/** The stored endpoint of `id`, or undefined. */
async function endpoint(id: string): Promise<RawItem | undefined> {
  return (await scanTable(db.client, testTableNames.webhookEndpoints)).find(
    (s) => s.subscriptionId?.S === id,
  );
}

/** The endpoint ids of `owner` in the owners table. */
async function ownedIds(owner: string): Promise<string[] | undefined> {
  const item = (await scanTable(db.client, testTableNames.webhookEndpointOwners)).find(
    (o) => o.ownerKeyId?.S === owner,
  );
  return item?.endpointIds?.SS;
}

/** Cancels the first `count` TransactWriteItems with a TransactionConflict, then forwards them. */
function conflicts(count: number) {
  let seen = 0;
  proxy.fault = (operation) => (operation === 'TransactWriteItems' && seen++ < count ? 'conflict' : 'pass');
}

describe('the owner', () => {
  test("is the context's firstKeyId: a key made by rotate owns, lists and deletes its first key's endpoints", async () => {
    const created = await create(
      asKey(createEvent('http://127.0.0.1:9/rotated'), 'aaaaaaaaaaa2', 'aaaaaaaaaaa1'),
      lambdaContext('create'),
    );
    expect(created.statusCode).toBe(201);
    const { id } = JSON.parse(created.body);
    expect((await endpoint(id))?.ownerKeyId).toStrictEqual({ S: 'aaaaaaaaaaa1' });
    expect(await ownedIds('aaaaaaaaaaa1')).toStrictEqual([id]);

    const listed = await list(asKey(listEvent(), 'aaaaaaaaaaa3', 'aaaaaaaaaaa1'), lambdaContext('list'));
    expect(JSON.parse(listed.body).items.map((e: { id: string }) => e.id)).toStrictEqual([id]);
    const deleted = await remove(
      asKey(deleteEvent(id), 'aaaaaaaaaaa3', 'aaaaaaaaaaa1'),
      lambdaContext('delete'),
    );
    expect(deleted.statusCode).toBe(204);
  });

  test("is the key's own id when the context carries no firstKeyId", async () => {
    const created = await create(
      asKey(createEvent('http://127.0.0.1:9/own'), 'bbbbbbbbbbbb'),
      lambdaContext('create'),
    );
    expect(created.statusCode).toBe(201);
    const { id } = JSON.parse(created.body);
    expect((await endpoint(id))?.ownerKeyId).toStrictEqual({ S: 'bbbbbbbbbbbb' });
    // Another key, even one whose chain starts elsewhere, neither lists nor deletes it.
    const other = await remove(
      asKey(deleteEvent(id), 'cccccccccccc', 'dddddddddddd'),
      lambdaContext('delete'),
    );
    expect(other.statusCode).toBe(404);
    expect(await endpoint(id)).toBeDefined();
  });
});

describe('a TransactionConflict with another write of the same key', () => {
  test('is tried again: two conflicts, then 201 and one endpoint', async () => {
    conflicts(2);
    const created = await create(
      asKey(createEvent('http://127.0.0.1:9/retried'), 'eeeeeeeeeeee'),
      lambdaContext('create'),
    );
    expect(created.statusCode, created.body).toBe(201);
    const { id } = JSON.parse(created.body);
    expect(await ownedIds('eeeeeeeeeeee')).toStrictEqual([id]);
    expect(proxy.operations.filter((o) => o === 'TransactWriteItems').length).toBeGreaterThanOrEqual(3);
  });

  test('on every one of the five tries: 503 service_unavailable and nothing written', async () => {
    conflicts(5);
    const created = await create(
      asKey(createEvent('http://127.0.0.1:9/busy'), 'ffffffffffff'),
      lambdaContext('create'),
    );
    expect(created.statusCode).toBe(503);
    expect(JSON.parse(created.body)).toStrictEqual({
      code: 'service_unavailable',
      message: "too many changes of this key's webhook endpoints at once; retry",
      status: 503,
    });
    expect(await ownedIds('ffffffffffff')).toBeUndefined();
    const urls = (await scanTable(db.client, testTableNames.webhookEndpoints)).map((s) => s.url?.S);
    expect(urls).not.toContain('http://127.0.0.1:9/busy');
  });

  test('a delete is tried again too: one conflict, then 204', async () => {
    const created = await create(
      asKey(createEvent('http://127.0.0.1:9/delete'), 'abcabcabcabc'),
      lambdaContext('create'),
    );
    const { id } = JSON.parse(created.body);
    conflicts(1);
    const deleted = await remove(asKey(deleteEvent(id), 'abcabcabcabc'), lambdaContext('delete'));
    expect([deleted.statusCode, deleted.body]).toStrictEqual([204, '']);
    expect(await endpoint(id)).toBeUndefined();
  });
});
