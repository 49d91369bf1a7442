/**
 * The typed client (`client/`, package `@pet-store/client`) against the local API: int64 petIds round-trip
 * exactly (9223372036854775807, and 9007199254740993, which a double turns into its neighbour
 * 9007199254740992), every operation of openapi.yaml is callable with its generated types, and error
 * responses reject as typed `ApiError`s carrying the Error body.
 */
import { createPetStoreClient, type PetStoreClient } from '@pet-store/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { appendEvents } from '#lib/events/event-append.ts';
import { localTableNames } from '#local/settings.ts';
import { apiError } from '#test/support/api-error.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

const max = 9223372036854775807n;
const beyondDouble = 9007199254740993n;
const itsDouble = 9007199254740992n;

let api: TestApi;
let client: PetStoreClient;

beforeAll(async () => {
  api = await startTestApi({ seed: false });
  client = createPetStoreClient({ baseUrl: api.baseUrl, apiKey: api.apiKey });
  await api.putRawItems([
    inventoryRecord(String(max), 3, 'available'),
    inventoryRecord(String(beyondDouble), 5, 'pending'),
    inventoryRecord(String(itsDouble), 7, 'sold'),
    inventoryRecord('-9223372036854775808', 1, 'available'),
  ]);
});
afterAll(async () => {
  await api?.close();
});

describe('listInventory (GET /inventory)', () => {
  it('returns every entry with petId as an exact bigint', async () => {
    const items = await client.GET('/inventory');
    expect(items).toEqual([
      { petId: -9223372036854775808n, quantity: 1, status: 'available' },
      { petId: itsDouble, quantity: 7, status: 'sold' },
      { petId: beyondDouble, quantity: 5, status: 'pending' },
      { petId: max, quantity: 3, status: 'available' },
    ]);
  });
});

describe('updateInventory (PATCH /inventory/{petId})', () => {
  it('updates 9007199254740993 itself, not its double neighbour 9007199254740992', async () => {
    const item = await client.PATCH('/inventory/{petId}', {
      params: { path: { petId: beyondDouble } },
      body: { quantity: 4 },
    });
    expect(item).toEqual({ petId: beyondDouble, quantity: 4, status: 'pending' });
    const table = await api.tableItems();
    expect(table.find((row) => row.petId === String(beyondDouble))?.quantity).toBe('4');
    expect(table.find((row) => row.petId === String(itsDouble))?.quantity).toBe('7');
  });

  it('round-trips the int64 maximum digit for digit', async () => {
    const item = await client.PATCH('/inventory/{petId}', {
      params: { path: { petId: max } },
      body: { quantity: 2147483647 },
    });
    expect(item).toEqual({ petId: max, quantity: 2147483647, status: 'available' });
    expect((await client.GET('/inventory')).at(-1)).toEqual(item);
  });

  it('rejects an unknown pet with ApiError 404 not_found and a bad body with 400 invalid_request', async () => {
    const missing = await apiError(
      client.PATCH('/inventory/{petId}', { params: { path: { petId: 42n } }, body: { quantity: 1 } }),
    );
    expect([missing.status, missing.code, missing.message]).toEqual([
      404,
      'not_found',
      'no inventory entry for petId 42',
    ]);
    const invalid = await apiError(
      client.PATCH('/inventory/{petId}', { params: { path: { petId: max } }, body: { quantity: -1 } }),
    );
    expect([invalid.status, invalid.code]).toEqual([400, 'invalid_request']);
    expect(invalid.body).toEqual({ code: 'invalid_request', message: invalid.message, status: 400 });
  });
});

describe('listEvents (GET /events)', () => {
  it('returns the events with their ids, and each int64 in their data as an exact bigint', async () => {
    // Appended as recordChanges appends them (this suite runs without the event path).
    await appendEvents(toDocumentClient(api.dynamoDb), localTableNames().events, [
      {
        type: 'inventory.changed',
        data: {
          sequence: 2,
          petId: String(beyondDouble),
          occurredAt: '2026-11-27T10:00:00.000Z',
          reason: 'order_placed',
          quantity: { from: 7, to: 5 },
          status: { from: 'available', to: 'available' },
          orderId: String(max),
        },
      },
    ]);
    const events = await client.GET('/events', {
      params: { query: { type: 'inventory.changed', limit: 10 } },
    });
    expect(events).toEqual([
      {
        id: `inventory.${beyondDouble}.2`,
        type: 'inventory.changed',
        timestamp: '2026-11-27T10:00:00.000Z',
        data: {
          sequence: 2,
          petId: beyondDouble,
          occurredAt: '2026-11-27T10:00:00.000Z',
          reason: 'order_placed',
          quantity: { from: 7, to: 5 },
          status: { from: 'available', to: 'available' },
          orderId: max,
        },
      },
    ]);
    const refused = await apiError(client.GET('/events', { params: { query: { after: 'inventory.1.1' } } }));
    expect([refused.status, refused.code, refused.message]).toEqual([
      400,
      'invalid_request',
      'after names no event of the last 30 days: inventory.1.1',
    ]);
  });
});

describe('batchUpdateInventory (POST /inventory/batch)', () => {
  it('sends and reads every petId exactly, each item with its etag; a stale ifMatch rejects with ApiError 412', async () => {
    const result = await client.POST('/inventory/batch', {
      body: {
        changes: [
          { petId: itsDouble, quantity: 8, reason: 'arrival' },
          { petId: -9223372036854775808n, status: 'pending', ifMatch: '"1-available"' },
        ],
      },
    });
    expect(result).toEqual({
      items: [
        { petId: itsDouble, quantity: 8, status: 'sold', etag: '"8-sold"' },
        { petId: -9223372036854775808n, quantity: 1, status: 'pending', etag: '"1-pending"' },
      ],
    });
    const table = await api.tableItems();
    expect(table.find((row) => row.petId === String(itsDouble))?.quantity).toBe('8');
    expect(table.find((row) => row.petId === String(beyondDouble))?.quantity).toBe('4');

    const stale = await apiError(
      client.POST('/inventory/batch', {
        body: { changes: [{ petId: itsDouble, quantity: 9, ifMatch: '"7-sold"' }] },
      }),
    );
    expect(stale.body).toEqual({
      code: 'precondition_failed',
      message: `changes[0]: ifMatch does not match the current entry of petId ${itsDouble}`,
      status: 412,
    });
  });
});

describe('getPetById (GET /pets/{petId})', () => {
  it('returns the pet of an imported entry with its id as an exact bigint, and ApiError 404 for no pet', async () => {
    const pet = await client.GET('/pets/{petId}', { params: { path: { petId: max } } });
    expect(pet).toEqual({ id: max, photoUrls: [], tags: [], status: 'available' });
    const error = await apiError(client.GET('/pets/{petId}', { params: { path: { petId: 8n } } }));
    expect([error.status, error.code]).toEqual([404, 'not_found']);
  });
});

describe('webhook endpoints (POST, GET /webhook-endpoints, DELETE /webhook-endpoints/{endpointId})', () => {
  it('creates an endpoint (its secret once), lists it without the secret, deletes it (undefined on 204), then ApiError 404', async () => {
    const created = await client.POST('/webhook-endpoints', {
      body: { url: 'http://127.0.0.1:4000/hooks', events: ['order.changed'] },
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^ws_/),
      url: 'http://127.0.0.1:4000/hooks',
      events: ['order.changed'],
      state: 'enabled',
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    // Listed as created, without the secret (toEqual passes over the member set to undefined here).
    const listed = await client.GET('/webhook-endpoints');
    expect(listed).toEqual({ items: [{ ...created, secret: undefined }] });
    expect(listed.items[0]).not.toHaveProperty('secret');
    const path = { params: { path: { endpointId: created.id } } };
    expect(await client.DELETE('/webhook-endpoints/{endpointId}', path)).toBeUndefined();
    const error = await apiError(client.DELETE('/webhook-endpoints/{endpointId}', path));
    expect([error.status, error.code]).toEqual([404, 'not_found']);
  });
});

describe('credentials', () => {
  it('rejects a client without a key with ApiError 401 unauthorized', async () => {
    const anonymous = createPetStoreClient({ baseUrl: api.baseUrl });
    const error = await apiError(anonymous.GET('/inventory'));
    expect([error.status, error.code]).toEqual([401, 'unauthorized']);
  });
});
