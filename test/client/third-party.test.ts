/**
 * A third-party client at its default settings reads every id the service assigns exactly (docs/contract.md
 * "Identifiers": assigned ids are at most 2^53 - 1, so that JavaScript's `JSON.parse`, generated clients and
 * Postman read them exactly). The client is what a consumer would make of openapi.yaml with a mainstream
 * generator: openapi-typescript's types at its defaults (`npm run client:third-party`, int64 as `number`) and
 * openapi-fetch, which parses bodies with `response.json()`. It runs a day in the shop against the local API
 * serving the synthesized stack: addPet without `id`, a delivery's stock, an order approved and delivered,
 * another cancelled, then everything read back by the ids the client parsed (getPetById, getOrderById,
 * listOrders, listInventoryHistory). Every body the client parsed, written again with `JSON.stringify`, is the
 * response text byte for byte, so no id lost a digit.
 */
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';
import type { paths } from './third-party-schema.ts';

let api: TestApi;
let client: ReturnType<typeof createClient<paths>>;
/** The text of the last response the client received, as it came over the wire. */
let lastText = '';

beforeAll(async () => {
  api = await startTestApi({ events: true });
  client = createClient<paths>({ baseUrl: api.baseUrl, headers: { Authorization: api.authorization } });
  client.use({
    async onResponse({ response }) {
      lastText = await response.clone().text();
    },
  });
});
afterAll(async () => {
  await api?.close();
});

/**
 * The parsed body of a call that must answer `status`, after checking that it is the response text exactly
 * (JSON.stringify writes back every number JSON.parse read, so a rounded id would differ).
 */
async function parsed<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  status: number,
): Promise<T> {
  const { data, error, response } = await call;
  expect(response.status, lastText).toBe(status);
  expect(error).toBeUndefined();
  expect(JSON.stringify(data)).toBe(lastText);
  return data as T;
}

/** The digits of every `"member": <integer>` of `text`, in order. */
function integersOf(text: string, member: string): string[] {
  return [...text.matchAll(new RegExp(`"${member}":(-?\\d+)`, 'g'))].map(([, digits]) => digits as string);
}

/**
 * Polls listInventoryHistory of `petId` until it holds `count` records (the change records are asynchronous),
 * every 100 ms for at most 10 s.
 */
function historyOf(petId: number, count: number) {
  return vi.waitFor(
    async () => {
      const records = await parsed(
        client.GET('/inventory/{petId}/history', { params: { path: { petId } } }),
        200,
      );
      expect(records.length).toBeGreaterThanOrEqual(count);
      return records;
    },
    { timeout: 10_000, interval: 100 },
  );
}

describe('a day in the shop with openapi-typescript + openapi-fetch at their defaults', () => {
  test('every assigned id reaches the client exactly and reads back the same pet and orders', async () => {
    const pet = await parsed(
      client.POST('/pets', { body: { name: 'Biscuit', photoUrls: [], tags: [], status: 'available' } }),
      201,
    );
    const [petDigits] = integersOf(lastText, 'id');
    expect(String(pet.id)).toBe(petDigits);
    expect(Number.isSafeInteger(pet.id) && pet.id > 0).toBe(true);

    const stocked = await parsed(
      client.PATCH('/inventory/{petId}', {
        params: { path: { petId: pet.id } },
        body: { quantity: 5, reason: 'arrival' },
      }),
      200,
    );
    expect(stocked).toEqual({ petId: pet.id, quantity: 5, status: 'available' });

    const delivered = await parsed(
      client.POST('/store/orders', { body: { petId: pet.id, quantity: 2 } }),
      201,
    );
    expect(String(delivered.id)).toBe(integersOf(lastText, 'id')[0]);
    for (const status of ['approved', 'delivered'] as const) {
      const moved = await parsed(
        client.PATCH('/store/orders/{orderId}', {
          params: { path: { orderId: delivered.id } },
          body: { status },
        }),
        200,
      );
      expect(moved).toMatchObject({ id: delivered.id, petId: pet.id, status });
    }

    const cancelled = await parsed(
      client.POST('/store/orders', { body: { petId: pet.id, quantity: 1 } }),
      201,
    );
    expect(String(cancelled.id)).toBe(integersOf(lastText, 'id')[0]);
    expect(cancelled.id).not.toBe(delivered.id);
    await parsed(
      client.PATCH('/store/orders/{orderId}', {
        params: { path: { orderId: cancelled.id } },
        body: { status: 'cancelled' },
      }),
      200,
    );

    // Read back by the ids the client parsed.
    expect(await parsed(client.GET('/pets/{petId}', { params: { path: { petId: pet.id } } }), 200)).toEqual(
      pet,
    );
    expect(
      await parsed(
        client.GET('/store/orders/{orderId}', { params: { path: { orderId: delivered.id } } }),
        200,
      ),
    ).toEqual({ id: delivered.id, petId: pet.id, quantity: 2, status: 'delivered', complete: true });
    expect(
      await parsed(
        client.GET('/store/orders/{orderId}', { params: { path: { orderId: cancelled.id } } }),
        200,
      ),
    ).toEqual({ id: cancelled.id, petId: pet.id, quantity: 1, status: 'cancelled', complete: false });
    const orders = await parsed(client.GET('/store/orders'), 200);
    expect(orders.map((order) => order.id)).toEqual([cancelled.id, delivered.id]);
    expect(orders.map((order) => String(order.id))).toEqual(integersOf(lastText, 'id'));
    expect(
      await parsed(client.GET('/inventory/{petId}', { params: { path: { petId: pet.id } } }), 200),
    ).toEqual({ petId: pet.id, quantity: 3, status: 'available' });

    // The history: created, the arrival, two orders placed and one cancelled, newest first.
    const history = await historyOf(pet.id, 5);
    expect(history.map((record) => [record.sequence, record.reason, record.orderId])).toEqual([
      [5, 'order_cancelled', cancelled.id],
      [4, 'order_placed', cancelled.id],
      [3, 'order_placed', delivered.id],
      [2, 'arrival', undefined],
      [1, 'created', undefined],
    ]);
    expect(history.every((record) => record.petId === pet.id)).toBe(true);
    expect(integersOf(lastText, 'orderId')).toEqual([cancelled.id, cancelled.id, delivered.id].map(String));
  });
});
