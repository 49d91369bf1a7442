/**
 * Hostile identifier path segments on the reads by id (docs/contract.md "Identifiers", "Requests as API Gateway
 * delivers them"), property-based: for each of `GET /v1/inventory/{petId}` (getInventoryItem),
 * `GET /v1/pets/{petId}` (getPetById) and `GET /v1/store/orders/{orderId}` (getOrderById), 300 generated
 * segments per run (test/support/hostile-ids.ts: percent-encoded, overlong, unicode, dots, signs, leading
 * zeros, int64 edges), sent with a valid key.
 *
 * Oracle (test/support/contract-oracle.ts `contractPetId`, independent of lib/): when the decoded segment is a
 * canonical int64 the answer is 200 with the exact body of the stored pet, entry or order (ETag, Deprecation and
 * Sunset headers included) or 404 `not_found` with its exact message; otherwise 400 `invalid_request` with the
 * identifier rule's exact message. Never a 5xx, and every table (inventory, orders, idempotency records) is
 * exactly as it was before each request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TableId } from '#lib/tables.ts';
import { contractPetId, expectContractError, observe } from '#test/support/contract-oracle.ts';
import { idSegment } from '#test/support/hostile-ids.ts';
import { type RawClient, type RawResponse, rawClient } from '#test/support/raw-http.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

const checkedTables: TableId[] = ['inventory', 'orders', 'idempotency'];
const idRule = (name: string) =>
  `${name} must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal without leading zeros or '+'`;
const deprecation = { deprecation: '@1795392000', sunset: 'Wed, 30 Jun 2027 23:59:59 GMT' };

/** Pets added through addPet (int64 edges, every detail) and the exact Pet JSON the contract gives them. */
const addedPets: [string, string][] = [
  [
    '{"id": -9223372036854775808, "name": "Min", "status": "sold"}',
    '{"id":-9223372036854775808,"name":"Min","photoUrls":[],"tags":[],"status":"sold"}',
  ],
  [
    '{"id": 9223372036854775807, "name": "Max 🐕", "category": {"id": 9007199254740993, "name": "Dogs"}, "photoUrls": ["a"], "tags": [{"id": -1, "name": "t"}]}',
    '{"id":9223372036854775807,"name":"Max 🐕","category":{"id":9007199254740993,"name":"Dogs"},"photoUrls":["a"],"tags":[{"id":-1,"name":"t"}],"status":"available"}',
  ],
];
/** Entries stored without pet details (as the import tool writes them): their Pet has no name. */
const plainEntries = [
  { petId: '0', quantity: 3, status: 'available' },
  { petId: '-1', quantity: 0, status: 'pending' },
  { petId: '7', quantity: 10, status: 'available' },
] as const;

let api: TestApi;
let client: RawClient;
/** Exact 200 bodies by canonical id, per operation. */
const entries = new Map<string, string>();
const pets = new Map<string, string>();
const orders = new Map<string, string>();
let tablesBefore: Record<string, string>[][];

/** Every checked table, exactly as stored. */
function tableState(): Promise<Record<string, string>[][]> {
  return Promise.all(checkedTables.map((table) => api.tableItems(table)));
}

function send(method: string, path: string, body?: string): Promise<RawResponse> {
  return client.send({
    method,
    path,
    headers: [
      ['Authorization', api.authorization],
      ...(body === undefined ? [] : [['Content-Type', 'application/json'] as [string, string]]),
    ],
    body,
  });
}

beforeAll(async () => {
  api = await startTestApi();
  client = rawClient(api.baseUrl);
  await api.inventory.putMany(plainEntries);
  for (const [body, json] of addedPets) {
    const response = await send('POST', '/pets', body);
    expect(response.status, response.text).toBe(201);
    expect(response.text).toBe(json);
    const id = /^\{"id":(-?\d+),/.exec(json)?.[1] as string;
    pets.set(id, json);
    entries.set(id, `{"petId":${id},"quantity":0,"status":"${JSON.parse(json).status}"}`);
  }
  for (const { petId, quantity, status } of plainEntries) {
    pets.set(petId, `{"id":${petId},"photoUrls":[],"tags":[],"status":"${status}"}`);
    entries.set(petId, `{"petId":${petId},"quantity":${quantity},"status":"${status}"}`);
  }
  for (const quantity of [1, 2, 3]) {
    const response = await send('POST', '/store/orders', `{"petId": 7, "quantity": ${quantity}}`);
    expect(response.status, response.text).toBe(201);
    const id = /^\{"id":([1-9]\d*),/.exec(response.text)?.[1] as string;
    expect(response.text).toBe(
      `{"id":${id},"petId":7,"quantity":${quantity},"status":"placed","complete":false}`,
    );
    orders.set(id, response.text);
  }
  entries.set('7', '{"petId":7,"quantity":4,"status":"available"}');
  tablesBefore = await tableState();
});
afterAll(async () => {
  client?.close();
  await api?.close();
});

/** One read by id: its path, the parameter's name, its 404 message and its exact 200 bodies. */
interface ReadById {
  operation: string;
  path: (segment: string) => string;
  parameter: string;
  notFound: (id: string) => string;
  bodies: () => Map<string, string>;
  /** Headers every response carries, besides the Error or entity headers. */
  headers?: Record<string, string>;
}

const reads: ReadById[] = [
  {
    operation: 'getInventoryItem',
    path: (segment) => `/inventory/${segment}`,
    parameter: 'petId',
    notFound: (id) => `no inventory entry for petId ${id}`,
    bodies: () => entries,
  },
  {
    operation: 'getPetById',
    path: (segment) => `/pets/${segment}`,
    parameter: 'petId',
    notFound: (id) => `no pet with id ${id}`,
    bodies: () => pets,
    headers: deprecation,
  },
  {
    operation: 'getOrderById',
    path: (segment) => `/store/orders/${segment}`,
    parameter: 'orderId',
    notFound: (id) => `no order with id ${id}`,
    bodies: () => orders,
  },
];

/**
 * Sends `GET` of `segment` to `read` and checks the answer against the oracle and every table against its
 * state before.
 * @returns the response status.
 */
async function checkRead(read: ReadById, segment: string): Promise<number> {
  const response = await send('GET', read.path(segment));
  const observed = observe(response);
  const context = `GET ${read.path(segment).slice(0, 200)} -> ${response.status} ${response.text}`;
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = undefined;
  }
  const id = decoded === undefined ? undefined : contractPetId(decoded);
  if (decoded === undefined) {
    expectContractError(observed, 400, `path parameter ${read.parameter} is not valid percent-encoded UTF-8`);
  } else if (id === undefined) {
    expectContractError(observed, 400, idRule(read.parameter));
  } else if (read.bodies().has(id)) {
    expect(response.status, context).toBe(200);
    expect(observed.contentType).toBe('application/json');
    expect(response.text, context).toBe(read.bodies().get(id));
    if (read.operation === 'getInventoryItem') {
      const { quantity, status } = JSON.parse(response.text);
      expect(response.headers.etag).toBe(`"${quantity}-${status}"`);
    }
  } else {
    expectContractError(observed, 404, read.notFound(id));
  }
  for (const [name, value] of Object.entries(read.headers ?? {})) {
    expect(response.headers[name], context).toBe(value);
  }
  expect(await tableState(), context).toEqual(tablesBefore);
  return response.status;
}

/** Segments of every kind, around the ids each read knows; never empty (`/v1/inventory/` is the list route). */
const segmentFor = (read: ReadById) =>
  idSegment([...read.bodies().keys()].flatMap((id) => [id, String(BigInt(id) + 1n)])).filter(
    (segment) => segment !== '',
  );

describe.each(reads)('$operation: hostile path ids', (read) => {
  test('answers 200 with the exact body or 404 only for a canonical int64, else 400 invalid_request; changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(segmentFor(read), async (segment) => {
        await checkRead(read, segment);
      }),
      { numRuns: 300 },
    );
  });

  test.each([
    ['9223372036854775807', [200, 404]],
    ['-9223372036854775808', [200, 404]],
    ['9223372036854775808', [400]],
    ['-9223372036854775809', [400]],
    ['18446744073709551616', [400]],
    ['-0', [200, 404]],
    ['%2D0', [200, 404]],
    ['07', [400]],
    ['%30%37', [400]],
    ['+7', [400]],
    ['%2B7', [400]],
    ['%207', [400]],
    ['7%20', [400]],
    ['7%2F', [400]],
    ['7.0', [400]],
    ['%2E', [400]],
    ['%2E%2E', [400]],
    ['1e3', [400]],
    ['%EF%BC%97', [400]],
    ['%E2%80%8B7', [400]],
    ['%C2%AD7', [400]],
    ['%00', [400]],
    [`1${'0'.repeat(5000)}`, [400]],
    [`${'0'.repeat(5000)}1`, [400]],
  ])('answers %s with one of %j and changes nothing', async (segment, statuses) => {
    expect(statuses).toContain(await checkRead(read, segment));
  });

  test.each(['%ZZ', '%FF', '7%', '%E2%82', '%ED%A0%80'])(
    'answers a segment that is not percent-encoded UTF-8 (%s) with 400 and changes nothing',
    async (segment) => {
      expect(await checkRead(read, segment)).toBe(400);
    },
  );
});
