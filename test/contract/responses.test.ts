/**
 * Every operation and every status the service can produce locally, over HTTP, each response checked three
 * ways: its exact status, `Content-Type` and body (docs/contract.md), its validity against openapi.yaml
 * (test/support/openapi-validator.ts must find no problem), and, for every rejected request, a table left
 * exactly as it was.
 *
 * 503 needs the database gone: the service runs against a dynalite this file starts on a fixed port, and the
 * last group of tests stops it.
 */
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Scope } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { badPetIdMessage } from '#test/support/http-assertions.ts';
import { int64Inventory, listBody } from '#test/support/inventory-fixtures.ts';
import { validateResponse } from '#test/support/openapi-validator.ts';
import { type RawClient, rawClient } from '#test/support/raw-http.ts';
import { startTestApi, storedEntry, type TestApi, unthrottled } from '#test/support/test-api.ts';

const items = int64Inventory;

const error = (code: string, message: string, status: number) => JSON.stringify({ code, message, status });
const unauthorized = error(
  'unauthorized',
  'a valid API key is required: send Authorization: Bearer <API_KEY>',
  401,
);
const noRoute = error(
  'not_found',
  'no such route or method: the operations are listed in the API description (openapi.yaml)',
  404,
);
const badPetId = error('invalid_request', badPetIdMessage, 400);
const badQuantity = error('invalid_request', 'quantity must be an integer from 0 to 2147483647', 400);
const badContentType = error('invalid_request', 'Content-Type must be application/json', 400);

let db: TestStore;
let api: TestApi;
let client: RawClient;

beforeAll(async () => {
  db = await startTestStore({ restartable: true });
  api = await startTestApi({ dynamoDb: db });
  await api.inventory.putMany(items);
  client = rawClient(api.baseUrl);
});
afterAll(async () => {
  client?.close();
  await api?.close();
  await db?.close();
});

/** A request of the table below: `auth` false sends no `Authorization`, a string sends that value. */
interface Case {
  method: string;
  path: string;
  auth?: boolean | string;
  contentType?: string;
  body?: string;
}

/** Sends `request`, asserts the exact response and its openapi.yaml validity; `declared` false for routes
 * the description cannot declare (unknown routes), whose exact body is still asserted. */
async function expectResponse(request: Case, status: number, body: string, declared = true): Promise<void> {
  const headers: [string, string][] = [];
  if (request.auth !== false) {
    headers.push(['Authorization', typeof request.auth === 'string' ? request.auth : api.authorization]);
  }
  if (request.contentType !== undefined) headers.push(['Content-Type', request.contentType]);
  const response = await client.send({
    method: request.method,
    path: request.path,
    headers,
    body: request.body,
  });
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  expect(response.text).toBe(body);
  if (declared) {
    const problems = validateResponse({
      method: request.method,
      path: request.path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    });
    expect(problems).toEqual([]);
  }
}

/** Asserts that `run` leaves the inventory table exactly as it found it. */
async function expectTableUnchanged(run: () => Promise<void>): Promise<void> {
  const before = await api.tableItems();
  await run();
  expect(await api.tableItems()).toEqual(before);
}

const patch = (path: string, body?: string, contentType = 'application/json'): Case => ({
  method: 'PATCH',
  path,
  contentType,
  ...(body === undefined ? {} : { body }),
});

describe('200', () => {
  test('lists every entry sorted by petId, each petId exact over the whole int64 range', async () => {
    await expectResponse({ method: 'GET', path: '/inventory' }, 200, listBody(items));
  });

  test('updates the quantity and answers with the entry, status unchanged, petId exact', async () => {
    await expectResponse(
      patch('/inventory/9007199254740993', '{"quantity":4}'),
      200,
      '{"petId":9007199254740993,"quantity":4,"status":"pending"}',
    );
    expect((await api.tableItems()).find((item) => item.petId === '9007199254740993')).toEqual(
      storedEntry('9007199254740993', 4, 'pending', { reason: 'adjustment', keyId: api.keyId }),
    );
  });
});

describe('400 invalid_request, table unchanged', () => {
  test.each([
    'abc',
    '1.5',
    '01',
    '%2B1',
    '+1',
    '%201',
    '1%20',
    '9223372036854775808',
    '-9223372036854775809',
    '1e3',
    '0x1F',
  ])('rejects the petId segment %s with 400 invalid_request', async (segment) => {
    await expectTableUnchanged(() =>
      expectResponse(patch(`/inventory/${segment}`, '{"quantity":1}'), 400, badPetId),
    );
  });

  // The quantity rule's one proof of what a client sees (docs/contract.md "InventoryUpdate", "Integers in request
  // bodies"): every kind of value that is not an integer from 0 to 2147483647, judged on the JSON source text.
  test.each([
    ['quantity above 2147483647', '{"quantity":2147483648}'],
    ['a negative quantity', '{"quantity":-1}'],
    ['a fractional quantity', '{"quantity":1.5}'],
    ['a string quantity', '{"quantity":"5"}'],
    ['a boolean quantity', '{"quantity":true}'],
    ['a null quantity', '{"quantity":null}'],
    ['an array quantity', '{"quantity":[]}'],
    ['an object quantity', '{"quantity":{}}'],
    ...[
      '1e400',
      '1e-400',
      '4.9999999999999999',
      '2147483647.0000001',
      '0.0000000000000000000001',
      '9007199254740993',
    ].map((literal) => [
      `the literal ${literal} (no integer of the range, by its source text)`,
      `{"quantity":${literal}}`,
    ]),
  ])('rejects %s with 400 invalid_request', async (_name, body) => {
    await expectTableUnchanged(() => expectResponse(patch('/inventory/10', body), 400, badQuantity));
  });

  test('answers PATCH /inventory/ (an empty petId: one trailing slash is ignored, so no such method) with 404 not_found', async () => {
    await expectTableUnchanged(() => expectResponse(patch('/inventory/', '{"quantity":1}'), 404, noRoute));
  });

  const notObject = 'request body must be a JSON object such as {"quantity": 5}';
  const noBody = 'request body is required: a JSON object such as {"quantity": 5}';
  test.each([
    [
      'a body with neither quantity nor status',
      '{}',
      'request body must contain at least one of quantity, adjustBy, status, reorderPoint',
    ],
    [
      'a body with only a reason',
      '{"reason":"return"}',
      'request body must contain at least one of quantity, adjustBy, status, reorderPoint',
    ],
    ['an unknown status', '{"status":"lost"}', 'status must be one of available, pending, sold'],
    [
      'an unknown reason',
      '{"quantity":1,"reason":"theft"}',
      'reason must be one of arrival, return, adjustment, sale, loss',
    ],
    [
      'a member besides quantity, status and reason, naming it',
      '{"quantity":1,"status":"sold","price":3}',
      'request body may only contain quantity, adjustBy, status, reorderPoint, reason; not allowed: "price"',
    ],
    ['a body that is not an object', '[1]', notObject],
    ['a JSON array of an update', '[{"quantity": 1}]', notObject],
    ['a JSON string', '"{\\"quantity\\": 1}"', notObject],
    ['JSON null', 'null', notObject],
    ['a JSON number', '5', notObject],
    ['malformed JSON', '{"quantity":', 'request body must be valid JSON'],
    ['an unclosed object', '{"quantity": 1', 'request body must be valid JSON'],
    ['non-JSON text', 'quantity=1', 'request body must be valid JSON'],
    ['a __proto__ member', '{"__proto__":{"quantity":1}}', 'request body member "__proto__" is not allowed'],
    ['an empty body', '', noBody],
    ['a missing body', undefined, noBody],
  ])('rejects %s with 400 invalid_request', async (_name, body, message) => {
    await expectTableUnchanged(() =>
      expectResponse(patch('/inventory/10', body), 400, error('invalid_request', message, 400)),
    );
  });

  test.each(['text/plain', 'application/xml', 'application/jsonx', 'application/x-www-form-urlencoded'])(
    'rejects Content-Type %s with 400 invalid_request (not 415)',
    async (contentType) => {
      await expectTableUnchanged(() =>
        expectResponse(patch('/inventory/10', '{"quantity":1}', contentType), 400, badContentType),
      );
    },
  );

  test('rejects a body without Content-Type with 400 invalid_request', async () => {
    await expectTableUnchanged(() =>
      expectResponse({ method: 'PATCH', path: '/inventory/10', body: '{"quantity":1}' }, 400, badContentType),
    );
  });

  test('checks validation before existence: a bad body for a pet with no entry is 400, not 404', async () => {
    await expectTableUnchanged(() =>
      expectResponse(patch('/inventory/8', '{"quantity":-1}'), 400, badQuantity),
    );
  });
});

describe('401 unauthorized, table unchanged', () => {
  test.each([
    ['no Authorization header', false],
    ['an unknown key', 'Bearer psk_unknown'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty token', 'Bearer '],
  ] as const)('refuses a list request with %s with 401 unauthorized', async (_name, auth) => {
    await expectResponse({ method: 'GET', path: '/inventory', auth }, 401, unauthorized);
  });

  test.each([
    ['no Authorization header', false],
    ['an unknown key', 'Bearer psk_unknown'],
  ] as const)('refuses an update with %s with 401 unauthorized', async (_name, auth) => {
    await expectTableUnchanged(() =>
      expectResponse({ ...patch('/inventory/10', '{"quantity":1}'), auth }, 401, unauthorized),
    );
  });

  test('checks authentication before validation: a bad petId without a key is 401, not 400', async () => {
    await expectTableUnchanged(() =>
      expectResponse({ ...patch('/inventory/abc', '{"quantity":-1}'), auth: false }, 401, unauthorized),
    );
  });
});

describe('404 not_found, table unchanged', () => {
  test.each(['8', '11', '-7', '9223372036854775806'])(
    'rejects an update of pet %s, which has no entry, with 404 not_found and creates no entry',
    async (petId) => {
      await expectTableUnchanged(() =>
        expectResponse(
          patch(`/inventory/${petId}`, '{"quantity":1}'),
          404,
          error('not_found', `no inventory entry for petId ${petId}`, 404),
        ),
      );
    },
  );

  test('checks the route before authentication: an unknown route without a key is 404, not 401', async () => {
    await expectResponse({ method: 'PUT', path: '/pets/7', auth: false }, 404, noRoute, false);
  });

  test.each([
    ['DELETE', '/inventory/8'],
    ['PUT', '/inventory/8'],
    ['POST', '/inventory'],
    ['PATCH', '/inventory'],
    ['GET', '/inventory/8/extra'],
    ['DELETE', '/store/orders'],
    ['GET', '/'],
  ])('answers %s %s (no such route or method) with 404 not_found', async (method, path) => {
    // Not in openapi.yaml by definition, so only the exact response is checked.
    await expectTableUnchanged(() =>
      expectResponse(
        { method, path, contentType: 'application/json', body: '{"quantity":1}' },
        404,
        noRoute,
        false,
      ),
    );
  });
});

describe('403 forbidden and 429 too_many_requests, table unchanged', () => {
  /** Stores a key with only `scopes` and, when given, its own throttle; returns its Authorization value. */
  async function keyWith(scopes: Scope[], throttle = unthrottled): Promise<string> {
    const key = generateApiKey();
    await api.keys.put({
      keyDigest: apiKeyDigest(key),
      name: `contract-${scopes.join('-')}`,
      createdAt: new Date().toISOString(),
      scopes,
      ...throttle,
    });
    return `Bearer ${key}`;
  }

  test.each([
    ['GET', '/inventory', ['inventory:write'], 'inventory:read', 'listInventory'],
    ['PATCH', '/inventory/7', ['inventory:read'], 'inventory:write', 'updateInventory'],
  ] as const)(
    '%s %s with a key lacking the scope: 403 forbidden',
    async (method, path, held, needed, name) => {
      const auth = await keyWith([...held]);
      const request =
        method === 'PATCH' ? { ...patch(path, '{"quantity": 1}'), auth } : { method, path, auth };
      await expectTableUnchanged(() =>
        expectResponse(
          request,
          403,
          error('forbidden', `this API key lacks the scope ${needed} that ${name} requires`, 403),
        ),
      );
    },
  );

  test.each([
    ['GET', '/inventory'],
    ['PATCH', '/inventory/7'],
  ] as const)('%s %s over the key rate: 429 too_many_requests', async (method, path) => {
    const auth = await keyWith(['inventory:read', 'inventory:write'], { rateLimit: 1, burstLimit: 1 });
    // The key's one token (burst 1) goes to a list; the request under test comes within the same second.
    const first = await client.send({
      method: 'GET',
      path: '/inventory',
      headers: [['Authorization', auth]],
    });
    expect(first.status).toBe(200);
    const request =
      method === 'PATCH' ? { ...patch(path, '{"quantity": 70}'), auth } : { method, path, auth };
    await expectTableUnchanged(() =>
      expectResponse(request, 429, error('too_many_requests', 'too many requests; retry later', 429)),
    );
  });
});

describe('413 payload_too_large, table unchanged', () => {
  test('rejects a body of 10 MB + 1 byte with 413 payload_too_large', async () => {
    const body = `{"quantity":1${' '.repeat(10 * 1024 * 1024 - 13)}}`;
    expect(Buffer.byteLength(body)).toBe(10 * 1024 * 1024 + 1);
    await expectTableUnchanged(() =>
      expectResponse(
        patch('/inventory/10', body),
        413,
        error(
          'payload_too_large',
          'request too large: at most 6 MB of body and 10,240 bytes of headers',
          413,
        ),
      ),
    );
  });
});

describe('503 service_unavailable (DynamoDB stopped; this group runs last)', () => {
  const functionUnavailable = error(
    'service_unavailable',
    'the inventory database is unavailable; retry later',
    503,
  );

  test('answers a list request with 503 service_unavailable when DynamoDB is unreachable', async () => {
    await db.stop();
    await expectResponse({ method: 'GET', path: '/inventory' }, 503, functionUnavailable);
  });

  test('answers an update with 503 service_unavailable when DynamoDB is unreachable', async () => {
    await expectResponse(patch('/inventory/10', '{"quantity":1}'), 503, functionUnavailable);
  });

  test('answers a request whose key is not yet cached with 503 service_unavailable (authorizer failure), not 401', async () => {
    await expectResponse(
      { method: 'GET', path: '/inventory', auth: 'Bearer psk_not_cached' },
      503,
      error('service_unavailable', 'the service is temporarily unavailable; retry later', 503),
    );
  });
});
