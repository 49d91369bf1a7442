/**
 * What the typed client (`@pet-store/client`) gives besides bodies, as client/README.md shows it: the status
 * and headers of every call (`withResponse`: `Location` of a 201, the `ETag` of a conditional update, the
 * response of an `ApiError` with `Retry-After` on a 429), and `pages`, which follows `Link` rel="next" with
 * `for await` through listOrders, listInventory and listEvents (that one to the first page shorter than its
 * `limit`, keeping the last page's `Link` to continue from).
 */
import { createPetStoreClient, type PetStoreClient } from '@pet-store/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import type { InventoryChange } from '#lib/events/changes.ts';
import { appendEvents } from '#lib/events/event-append.ts';
import { localTableNames } from '#local/settings.ts';
import { apiError } from '#test/support/api-error.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

let api: TestApi;
let client: PetStoreClient;

beforeAll(async () => {
  api = await startTestApi({ seed: false });
  client = createPetStoreClient({ baseUrl: api.baseUrl, apiKey: api.apiKey });
});
afterAll(async () => {
  await api?.close();
});

describe('pages (for await over Link rel="next")', () => {
  it('reads 250 orders of listOrders in pages of 100: every order once, in the order of one page of 1000', async () => {
    await api.putRawItems([inventoryRecord('77', 1000, 'available')]);
    const placed: bigint[] = [];
    for (let batch = 0; batch < 25; batch++) {
      const orders = await Promise.all(
        Array.from({ length: 10 }, () => client.POST('/store/orders', { body: { petId: 77n, quantity: 1 } })),
      );
      placed.push(...orders.map((order) => order.id));
    }

    const sizes: number[] = [];
    const links: (string | null)[] = [];
    const listed: bigint[] = [];
    for await (const { data, response } of client.pages('/store/orders', {
      params: { query: { limit: 100 } },
    })) {
      expect(response.status).toBe(200);
      sizes.push(data.length);
      links.push(response.headers.get('link'));
      listed.push(...data.map((order) => order.id));
    }

    expect(sizes).toEqual([100, 100, 50]);
    const next = expect.stringMatching(/^<\/v1\/store\/orders\?limit=100&cursor=[^>]+>; rel="next"$/);
    expect(links).toEqual([next, next, null]);
    expect([...listed].sort()).toEqual([...placed].sort());
    const onePage = await client.GET('/store/orders', { params: { query: { limit: 1000 } } });
    expect(listed).toEqual(onePage.map((order) => order.id));
  });

  it('pages listInventory with limit and status, the query kept on every page', async () => {
    await api.putRawItems(
      Array.from({ length: 7 }, (_, index) =>
        inventoryRecord(String(9007199254740993n + BigInt(index)), index, 'sold'),
      ),
    );
    const pages: bigint[][] = [];
    for await (const { data } of client.pages('/inventory', {
      params: { query: { limit: 3, status: 'sold' } },
    }))
      pages.push(data.map((item) => item.petId));
    const ids = Array.from({ length: 7 }, (_, index) => 9007199254740993n + BigInt(index));
    expect(pages).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
  });

  it('pages listEvents to the first page shorter than its limit; that page has the Link to continue from', async () => {
    const data = (sequence: number): InventoryChange => ({
      sequence,
      petId: '9223372036854775807',
      occurredAt: '2026-11-27T10:00:00.000Z',
      reason: 'arrival',
      quantity: { from: sequence - 1, to: sequence },
      status: { from: 'available', to: 'available' },
    });
    const events = toDocumentClient(api.dynamoDb);
    await appendEvents(
      events,
      localTableNames().events,
      [1, 2, 3, 4, 5].map((sequence) => ({ type: 'inventory.changed' as const, data: data(sequence) })),
    );

    const pages: string[][] = [];
    let last: Response | undefined;
    for await (const { data: page, response } of client.pages('/events', {
      params: { query: { limit: 2 } },
    })) {
      pages.push(page.map((event) => event.id));
      last = response;
    }
    const id = (sequence: number) => `inventory.9223372036854775807.${sequence}`;
    expect(pages).toEqual([[id(1), id(2)], [id(3), id(4)], [id(5)]]);
    expect(last?.headers.get('link')).toMatch(/^<\/v1\/events\?limit=2&after=[^>]+>; rel="next"$/);

    // Continuing from that Link later gives what was appended since, and nothing before.
    await appendEvents(events, localTableNames().events, [{ type: 'inventory.changed', data: data(6) }]);
    const after = new URL(/^<([^>]+)>/.exec(last?.headers.get('link') ?? '')?.[1] ?? '', api.baseUrl)
      .searchParams;
    const later = await client.GET('/events', {
      params: { query: { limit: 2, after: after.get('after') as string } },
    });
    expect(later.map((event) => event.id)).toEqual([id(6)]);
  });
});

describe('withResponse: status and headers', () => {
  it('gives the Location of a placed order and of an added pet with their 201', async () => {
    await api.putRawItems([inventoryRecord('78', 5, 'available')]);
    const order = await client.withResponse.POST('/store/orders', { body: { petId: 78n, quantity: 2 } });
    expect(order.response.status).toBe(201);
    expect(order.response.headers.get('location')).toBe(`/v1/store/orders/${order.data.id}`);
    expect(order.data).toEqual({
      id: order.data.id,
      petId: 78n,
      quantity: 2,
      status: 'placed',
      complete: false,
    });

    const pet = await client.withResponse.POST('/pets', { body: { name: 'Rex' } });
    expect([pet.response.status, pet.response.headers.get('location')]).toEqual([
      201,
      `/v1/pets/${pet.data.id}`,
    ]);
    expect(pet.data.id).toBeLessThanOrEqual(2n ** 53n - 1n);
  });

  it('updates conditionally: the ETag of a read in If-Match, the new ETag back; the stale one is ApiError 412', async () => {
    await api.putRawItems([inventoryRecord('79', 3, 'available')]);
    const path = { petId: 79n };
    const read = await client.withResponse.GET('/inventory/{petId}', { params: { path } });
    const etag = read.response.headers.get('etag') as string;
    expect(etag).toBe('"3-available"');

    const updated = await client.withResponse.PATCH('/inventory/{petId}', {
      params: { path, header: { 'If-Match': etag } },
      body: { quantity: 4 },
    });
    expect([updated.response.status, updated.response.headers.get('etag')]).toEqual([200, '"4-available"']);
    expect(updated.data).toEqual({ petId: 79n, quantity: 4, status: 'available' });

    const stale = await apiError(
      client.PATCH('/inventory/{petId}', {
        params: { path, header: { 'If-Match': etag } },
        body: { quantity: 5 },
      }),
    );
    expect([stale.status, stale.response.status, stale.body]).toEqual([
      412,
      412,
      {
        code: 'precondition_failed',
        message: 'If-Match does not match the current entry of petId 79',
        status: 412,
      },
    ]);
    expect((await api.tableItems()).find((row) => row.petId === '79')?.quantity).toBe('4');
  });

  it('gives the Retry-After of a 429 on the ApiError, and the 204 of a DELETE', async () => {
    // One request per 100 s: the second is throttled however slowly the first is served.
    const slow = createPetStoreClient({
      baseUrl: api.baseUrl,
      apiKey: await storeNewKey(api.keys, 'slow', { rateLimit: 0.01, burstLimit: 1 }),
    });
    expect((await slow.withResponse.GET('/inventory')).response.status).toBe(200);
    const throttled = await apiError(slow.GET('/inventory'));
    expect([throttled.status, throttled.code]).toEqual([429, 'too_many_requests']);
    expect(Number(throttled.response.headers.get('retry-after'))).toBeGreaterThan(90);

    const endpoint = await client.POST('/webhook-endpoints', {
      body: { url: 'http://127.0.0.1:4000/hooks' },
    });
    const deleted = await client.withResponse.DELETE('/webhook-endpoints/{endpointId}', {
      params: { path: { endpointId: endpoint.id } },
    });
    expect([deleted.response.status, deleted.data]).toEqual([204, undefined]);
  });
});
