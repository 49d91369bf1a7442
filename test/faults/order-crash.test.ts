/**
 * An order placed exactly once when placeOrder dies between its commit and its answer (docs/contract.md "Store
 * orders": "An order is placed at most once per Idempotency-Key even when the function dies or times out
 * between the commit and its answer"; docs/architecture.md "Orders exactly once").
 *
 * The failure is injected for real: the service runs the synthesized stack with placeOrder's timeout at
 * Lambda's minimum (1 s), against a DynamoDB behind a fault proxy that applies the order's TransactWriteItems
 * and withholds its answer, so the transaction commits and the function gives it up at its deadline and
 * answers 503 within its timeout (docs/contract.md "Exactly once under retries"). The client then retries as a client would, with the same `Idempotency-Key`, once the idempotency
 * record's in-progress expiry (the function's deadline) has passed; the tables are read afterwards.
 */
import { setTimeout } from 'node:timers/promises';
import type { Template } from 'local-aws';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { operationNamed } from '#lib/api.ts';
import { type FaultProxy, startFaultProxy } from '#test/support/dynamodb-fault-proxy.ts';
import { expectError } from '#test/support/http-assertions.ts';
import { servedStagingStack } from '#test/support/synthesized-assembly.ts';
import { startTestApi, type TestApi, type TestResponse } from '#test/support/test-api.ts';

/** placeOrder's timeout here, in seconds: Lambda's minimum, below the DynamoDB client's request timeout. */
const timeoutSeconds = 1;
/** Attempts of a retrying client: a 5xx or a 409 `conflict` is retried with the same key. */
const clientAttempts = 5;

let db: TestStore;
let proxy: FaultProxy;
let api: TestApi;

beforeAll(async () => {
  db = await startTestStore();
  proxy = await startFaultProxy(db.endpoint);
  const served = await servedStagingStack();
  const template = structuredClone(served.template) as Template;
  const placeOrder = template.Resources[functionLogicalId(operationNamed('placeOrder'))];
  (placeOrder?.Properties as Record<string, unknown>).Timeout = timeoutSeconds;
  api = await startTestApi({
    stack: { ...served, template },
    dynamoDb: { endpoint: proxy.endpoint, credentials: db.credentials },
  });
  // A first order starts placeOrder's execution environment, so that the crash below is not a cold start's.
  await api.inventory.putMany([{ petId: '40', quantity: 1, status: 'available' }]);
  expect((await retried(() => placeOrder40())).status).toBe(201);
});
afterAll(async () => {
  await api?.close();
  await proxy?.close();
  await db?.close();
});

const placeOrder40 = () => send('{"petId": 40, "quantity": 1}', {});

/** POST /store/orders with the test key, `body` and `headers`. */
function send(body: string, headers: Record<string, string>): Promise<TestResponse> {
  return api.request('POST', '/store/orders', {
    headers: { Authorization: api.authorization, 'Content-Type': 'application/json', ...headers },
    body,
  });
}

/** Sends until the answer is neither a 5xx nor a 409 `conflict`, at most {@link clientAttempts} times. */
async function retried(request: () => Promise<TestResponse>): Promise<TestResponse> {
  for (let attempt = 1; ; attempt++) {
    const response = await request();
    const again = response.status >= 500 || (response.status === 409 && response.text.includes('"conflict"'));
    if (!again || attempt === clientAttempts) return response;
    await setTimeout(200);
  }
}

/** The orders of `petId` and its stock, as the tables hold them. */
async function tablesOf(petId: string): Promise<{ orderIds: string[]; stock: string | undefined }> {
  const orders = await api.tableItems('orders');
  const stock = (await api.tableItems()).find((item) => item.petId === petId)?.quantity;
  return {
    orderIds: orders.filter((order) => order.petId === petId).map((order) => order.orderId ?? ''),
    stock,
  };
}

/**
 * Sends `body` with `key` while the order's transaction is applied and its answer withheld: the function
 * runs out of time after its commit and answers 503. @returns the order id the tables show committed.
 */
async function crashAfterCommit(petId: string, body: string, key: string): Promise<string> {
  proxy.fault = (operation) => (operation === 'TransactWriteItems' ? 'unanswered' : 'pass');
  const crashed = await send(body, { 'Idempotency-Key': key }).finally(() => proxy.restore());
  // The function answers before its timeout (lib/http/deadline.ts), never with the timeout's 500.
  expectError(
    crashed,
    503,
    'service_unavailable',
    'the inventory database did not answer in time; retry later',
  );
  const committed = await tablesOf(petId);
  expect(committed.orderIds).toHaveLength(1);
  return committed.orderIds[0] as string;
}

describe('placeOrder out of time between the commit and the answer: 503 within its timeout, never a timeout', () => {
  test('the retry with the same Idempotency-Key and order answers the order that was placed: one order, one decrement', async () => {
    await api.inventory.putMany([{ petId: '41', quantity: 10, status: 'available' }]);
    const body = '{"petId": 41, "quantity": 3}';
    const orderId = await crashAfterCommit('41', body, 'crash-41');
    expect((await tablesOf('41')).stock).toBe('7');

    // The same order, its members in another order: the claim compares the validated order, not the text.
    const retry = await retried(() =>
      send('{"quantity": 3, "petId": 41}', { 'Idempotency-Key': 'crash-41' }),
    );

    expect(retry.status, retry.text).toBe(201);
    expect(retry.text).toBe(`{"id":${orderId},"petId":41,"quantity":3,"status":"placed","complete":false}`);
    expect(retry.headers.get('location')).toBe(`/v1/store/orders/${orderId}`);
    const again = await send(body, { 'Idempotency-Key': 'crash-41' });
    expect([again.status, again.text]).toEqual([201, retry.text]);
    expect(await tablesOf('41')).toEqual({ orderIds: [orderId], stock: '7' });
  });

  test('the same Idempotency-Key with another order after the crash is 422 idempotency_key_reused and places nothing', async () => {
    await api.inventory.putMany([{ petId: '42', quantity: 10, status: 'available' }]);
    const orderId = await crashAfterCommit('42', '{"petId": 42, "quantity": 2}', 'crash-42');

    const other = await retried(() =>
      send('{"petId": 42, "quantity": 5}', { 'Idempotency-Key': 'crash-42' }),
    );

    expectError(
      other,
      422,
      'idempotency_key_reused',
      'this Idempotency-Key was used with another order in the last 24 hours',
    );
    expect(await tablesOf('42')).toEqual({ orderIds: [orderId], stock: '8' });
    // The first order is still the key's answer.
    const first = await retried(() =>
      send('{"petId": 42, "quantity": 2}', { 'Idempotency-Key': 'crash-42' }),
    );
    expect([first.status, first.text]).toEqual([
      201,
      `{"id":${orderId},"petId":42,"quantity":2,"status":"placed","complete":false}`,
    ]);
    expect(await tablesOf('42')).toEqual({ orderIds: [orderId], stock: '8' });
  });
});
