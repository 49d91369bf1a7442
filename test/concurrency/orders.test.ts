/**
 * Orders under load (docs/contract.md "Store orders": stock is never oversold): 500 concurrent orders of 1
 * against a stock of 100 (exactly 100 201s, 400 409s, stock 0, exactly those 100 orders listed), and the same
 * run with every Idempotency-Key sent 3 times concurrently (each key's stock reserved once), every request on
 * its own connection.
 */
import { describe, expect, test } from 'vitest';
import { manyConnectionsTimeoutMs } from '#test/support/connection-retries.ts';
import { expectError } from '#test/support/http-assertions.ts';
import { listAllOrders, stockOf } from '#test/support/order-lists.ts';
import { rawClientSuite, sendJson } from '#test/support/raw-http.ts';
import { testApiSuite } from '#test/support/test-api.ts';

/**
 * Connections of the raw client: enough for every request of a run to be in flight at once, each on its own
 * connection (500 orders; 500 keys sent 3 times each).
 */
const connections = 1500;

const api = testApiSuite();
const client = rawClientSuite(api, { maxSockets: connections, retryConnectionErrors: true });

/** POST /store/orders over {@link client} with a valid key and JSON body, plus `headers`. */
function sendOrder(body: string, headers: [string, string][] = []) {
  return sendJson(client, api.authorization, 'POST', '/store/orders', body, headers);
}

describe('concurrency (docs/contract.md: stock is never oversold)', {
  timeout: manyConnectionsTimeoutMs,
}, () => {
  test('500 concurrent orders of 1 (500 connections) against a stock of 100: exactly 100 201s and 400 409s, stock 0, 100 orders listed', async () => {
    await api.inventory.putMany([{ petId: '500', quantity: 100, status: 'available' }]);
    const responses = await Promise.all(
      Array.from({ length: 500 }, () => sendOrder('{"petId": 500, "quantity": 1}')),
    );
    const created = responses.filter((response) => response.status === 201);
    expect(created).toHaveLength(100);
    const refused = responses.filter((response) => response.status === 409);
    expect(refused).toHaveLength(400);
    for (const response of refused) {
      expectError(response, 409, 'insufficient_stock', 'fewer than 1 of petId 500 in stock');
    }
    for (const response of created) {
      expect(response.text).toMatch(
        /^\{"id":[1-9]\d*,"petId":500,"quantity":1,"status":"placed","complete":false\}$/,
      );
    }
    expect(stockOf(await api.tableItems(), '500')).toBe('0');
    const listed = (await listAllOrders(api, 1000))
      .filter((order) => order.petId === '500')
      .map((order) => order.id);
    const createdIds = created.map((response) => /^\{"id":(\d+)/.exec(response.text)?.[1]);
    expect(new Set(listed)).toEqual(new Set(createdIds));
    expect(listed).toHaveLength(100);
  });

  test('the same run with each of 500 Idempotency-Keys sent 3 times concurrently (1,500 connections) reserves each key once', async () => {
    await api.inventory.putMany([{ petId: '501', quantity: 100, status: 'available' }]);
    const keys = Array.from({ length: 500 }, (_, index) => `run-501-${index}`);
    // Each key's three sends leave together, and all 1,500 requests are in flight at once.
    const sends = keys.flatMap((key) => [key, key, key]);
    // A 503 (the store slow past the SDK's retries on a loaded machine) is sent again with its key, as a client
    // would: that is what the key is for, and the run still reserves each key once.
    const sendKeyed = async (key: string) => {
      for (let attempt = 1; ; attempt++) {
        const response = await sendOrder('{"petId": 501, "quantity": 1}', [['Idempotency-Key', key]]);
        if (response.status !== 503 || attempt === 10) return response;
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    };
    const responses = await Promise.all(sends.map(async (key) => ({ key, response: await sendKeyed(key) })));
    // Every 201 of a key is the same order, byte for byte (the first one's, replayed).
    const orderOfKey = new Map<string, Set<string>>();
    for (const { key, response } of responses) {
      expect([201, 409], response.text).toContain(response.status);
      if (response.status === 201) {
        orderOfKey.set(key, (orderOfKey.get(key) ?? new Set()).add(response.text));
      } else if (JSON.parse(response.text).code === 'conflict') {
        expectError(
          response,
          409,
          'conflict',
          'a request with this Idempotency-Key is still running; retry later',
        );
      } else {
        expectError(response, 409, 'insufficient_stock', 'fewer than 1 of petId 501 in stock');
      }
    }
    for (const texts of orderOfKey.values()) expect(texts.size).toBe(1);
    expect(orderOfKey.size).toBe(100);
    expect(stockOf(await api.tableItems(), '501')).toBe('0');
    const listed = (await listAllOrders(api, 1000))
      .filter((order) => order.petId === '501')
      .map((order) => order.id);
    const orderIds = [...orderOfKey.values()].flatMap((texts) =>
      [...texts].map((text) => /^\{"id":(\d+)/.exec(text)?.[1]),
    );
    expect(new Set(listed)).toEqual(new Set(orderIds));
    expect(listed).toHaveLength(100);
  });
});
