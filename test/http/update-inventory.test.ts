/**
 * updateInventory over HTTP (docs/service-spec.md §4.2; docs/contract.md "petId", "InventoryUpdate", "Semantics"): status,
 * content type, exact body, and the table's state afterwards.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { badPetIdMessage, expectRefused } from '#test/support/http-assertions.ts';
import { startTestApi, storedEntry, type TestApi } from '#test/support/local-api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const entries = [
  { petId: '-9223372036854775808', quantity: 1, status: 'pending' },
  { petId: '7', quantity: 3, status: 'available' },
  { petId: '9007199254740993', quantity: 5, status: 'sold' },
  { petId: '9223372036854775807', quantity: 2, status: 'pending' },
] as const;

beforeEach(async () => {
  await api.inventory.putMany(entries);
});

function patch(
  path: string,
  body?: string,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
) {
  return api.request('PATCH', path, {
    headers: { Authorization: api.authorization, ...headers },
    ...(body === undefined ? {} : { body }),
  });
}

/** Sends the request and asserts a 400 invalid_request with `message` that left the table unchanged. */
const expectRejected = (request: () => ReturnType<typeof patch>, message: string) =>
  expectRefused(api, request, 400, 'invalid_request', message);

describe('a valid update (rule 4)', () => {
  test('sets quantity, leaves status unchanged and returns the entry', async () => {
    const response = await patch('/inventory/7', '{"quantity": 40}');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.text).toBe('{"petId":7,"quantity":40,"status":"available"}');
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 40, 'available'));
  });

  test('sets the value rather than adding to it, so repeating it changes nothing (idempotent)', async () => {
    const first = await patch('/inventory/7', '{"quantity": 9}');
    const after = await api.tableItems();
    const second = await patch('/inventory/7', '{"quantity": 9}');
    expect(second.text).toBe(first.text);
    expect(await api.tableItems()).toEqual(after);
  });

  test('round-trips petId 9223372036854775807 digit for digit through PATCH and GET', async () => {
    const response = await patch('/inventory/9223372036854775807', '{"quantity": 2147483647}');
    expect(response.text).toBe('{"petId":9223372036854775807,"quantity":2147483647,"status":"pending"}');
    const list = await api.list();
    expect(list.text).toContain('{"petId":9223372036854775807,"quantity":2147483647,"status":"pending"}');
  });

  test('accepts the smallest int64 petId and quantity 0', async () => {
    const response = await patch('/inventory/-9223372036854775808', '{"quantity": 0}');
    expect(response.text).toBe('{"petId":-9223372036854775808,"quantity":0,"status":"pending"}');
  });

  test.each([
    'application/json; charset=utf-8',
    'application/merge-patch+json',
    'APPLICATION/JSON',
    'application/vnd.petstore+json; version=1',
    'application/json ; charset=utf-8',
    'application/vnd.pet_store+json',
  ])('accepts Content-Type %s', async (contentType) => {
    const response = await patch('/inventory/7', '{"quantity": 8}', { 'Content-Type': contentType });
    expect(response.status).toBe(200);
  });
});

describe('a bad petId is 400 invalid_request (rule 1; docs/contract.md "petId")', () => {
  test.each([
    'abc',
    '1.5',
    '01',
    '+1',
    '%201',
    '1%20',
    '9223372036854775808',
    '-9223372036854775809',
    '1e3',
    '0x1F',
  ])('rejects /inventory/%s', async (segment) => {
    await expectRejected(() => patch(`/inventory/${segment}`, '{"quantity": 1}'), badPetIdMessage);
  });
});

describe('a bad body is 400 invalid_request (rule 1; docs/contract.md "InventoryUpdate")', () => {
  const quantityRule = 'quantity must be an integer from 0 to 2147483647';
  const notObject = 'request body must be a JSON object such as {"quantity": 5}';
  test.each([
    ['-1', '{"quantity": -1}', quantityRule],
    ['2147483648', '{"quantity": 2147483648}', quantityRule],
    ['1.5', '{"quantity": 1.5}', quantityRule],
    ['"5"', '{"quantity": "5"}', quantityRule],
    ['true', '{"quantity": true}', quantityRule],
    ['null', '{"quantity": null}', quantityRule],
    ['[]', '{"quantity": []}', quantityRule],
    ['{}', '{"quantity": {}}', quantityRule],
    ['1e400', '{"quantity": 1e400}', quantityRule],
  ])('rejects quantity %s', async (_name, body, message) => {
    await expectRejected(() => patch('/inventory/7', body), message);
  });

  test.each([
    ['a missing quantity', '{}', 'quantity is required'],
    [
      'another member, named in the message',
      '{"quantity": 1, "status": "sold"}',
      'request body may only contain quantity; not allowed: "status"',
    ],
    ['a JSON array', '[{"quantity": 1}]', notObject],
    ['a JSON string', '"{\\"quantity\\": 1}"', notObject],
    ['JSON null', 'null', notObject],
    ['a JSON number', '5', notObject],
    ['malformed JSON', '{"quantity": 1', 'request body must be valid JSON'],
    ['non-JSON text', 'quantity=1', 'request body must be valid JSON'],
    [
      'a __proto__ member',
      '{"__proto__": {"quantity": 1}}',
      'request body member "__proto__" is not allowed',
    ],
  ])('rejects %s', async (_name, body, message) => {
    await expectRejected(() => patch('/inventory/7', body), message);
  });

  test('rejects a missing body', async () => {
    await expectRejected(
      () => patch('/inventory/7'),
      'request body is required: a JSON object such as {"quantity": 5}',
    );
  });

  test('rejects an empty body', async () => {
    await expectRejected(
      () => patch('/inventory/7', ''),
      'request body is required: a JSON object such as {"quantity": 5}',
    );
  });

  test.each([
    ['no Content-Type', {}],
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['application/xml', { 'Content-Type': 'application/xml' }],
    ['application/jsonx', { 'Content-Type': 'application/jsonx' }],
    ['application/x-www-form-urlencoded', { 'Content-Type': 'application/x-www-form-urlencoded' }],
  ])('rejects a JSON body sent with %s (400, not 415)', async (_name, headers) => {
    await expectRejected(
      () => patch('/inventory/7', '{"quantity": 1}', headers),
      'Content-Type must be application/json',
    );
  });
});

describe('an unknown pet is 404 not_found (rule 2)', () => {
  test.each(['8', '0', '-7', '9223372036854775806'])(
    'answers /inventory/%s with 404 and creates no entry',
    async (petId) => {
      await expectRefused(
        api,
        () => patch(`/inventory/${petId}`, '{"quantity": 1}'),
        404,
        'not_found',
        `no inventory entry for petId ${petId}`,
      );
    },
  );

  test('names -0 as the pet 0 it is', async () => {
    const response = await patch('/inventory/-0', '{"quantity": 1}');
    expect(JSON.parse(response.text).message).toBe('no inventory entry for petId 0');
  });
});

describe('requests as API Gateway delivers them (docs/contract.md; docs/api-gateway-behaviour.md E1, E3)', () => {
  test('a percent-encoded petId reaches the function encoded and is decoded once: %37 is pet 7', async () => {
    const response = await patch('/inventory/%37', '{"quantity": 17}');
    expect(response.text).toBe('{"petId":7,"quantity":17,"status":"available"}');
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 17, 'available'));
  });

  test('%2537 is decoded only once (the text %37): 400, nothing written', async () => {
    await expectRejected(() => patch('/inventory/%2537', '{"quantity": 17}'), badPetIdMessage);
  });

  test('a segment that is not percent-encoded UTF-8 is 400 from the function, not 404', async () => {
    await expectRejected(
      () => patch('/inventory/%FF', '{"quantity": 17}'),
      'path parameter petId is not valid percent-encoded UTF-8',
    );
  });

  test('PATCH /v1/inventory/7?dryRun=true is 400 naming the parameter, and writes nothing', async () => {
    await expectRejected(
      () => patch('/inventory/7?dryRun=true', '{"quantity": 99}'),
      'query parameters not allowed: "dryRun" (this operation takes none)',
    );
  });
});

describe('a body over 10 MB is 413 payload_too_large (docs/contract.md "Errors")', () => {
  test('rejects 10 MB + 1 byte before anything else, and changes nothing', async () => {
    const before = await api.tableItems();
    const response = await patch('/inventory/7', `{"quantity": 1${' '.repeat(10 * 1024 * 1024 - 14)}}`);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.text)).toEqual({
      code: 'payload_too_large',
      message: 'request too large: at most 6 MB of body and 10,240 bytes of headers',
      status: 413,
    });
    expect(await api.tableItems()).toEqual(before);
  });
});
