/**
 * updateInventory over HTTP (docs/service-spec.md §4.2; docs/contract.md "Identifiers", "InventoryUpdate", "Inventory semantics"): status,
 * content type, exact body, and the table's state afterwards. Every refused petId, body and content type is proven
 * in test/contract/responses.test.ts; here, the updates and the requests as API Gateway delivers them.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { badPetIdMessage, expectRefused } from '#test/support/http-assertions.ts';
import { storedEntry, testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite();

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

/** The change a PATCH with the suite's key records (docs/contract.md "Inventory semantics"). */
const patchedBy = (reason = 'adjustment') => ({ reason, keyId: api.keyId });

/** Asserts a PATCH's 200: JSON, with exactly the entry `text`. */
function expectUpdated(response: Awaited<ReturnType<typeof patch>>, text: string) {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.text).toBe(text);
}

/** Sends the request and asserts a 400 invalid_request with `message` that left the table unchanged. */
const expectRejected = (request: () => ReturnType<typeof patch>, message: string) =>
  expectRefused(api, request, 400, 'invalid_request', message);

describe('reorder points (docs/contract.md "Inventory semantics": reorder points)', () => {
  test('sets a reorder point, shows it in PATCH, GET and the list, keeps the ETag, and clears it with null', async () => {
    const set = await patch('/inventory/9223372036854775807', '{"reorderPoint": 5, "reason": "sale"}');
    expectUpdated(set, '{"petId":9223372036854775807,"quantity":2,"status":"pending","reorderPoint":5}');
    expect(set.headers.get('etag')).toBe('"2-pending"');
    expect(await api.tableItems()).toContainEqual({
      ...storedEntry('9223372036854775807', 2, 'pending', patchedBy('sale')),
      reorderPoint: '5',
    });
    const read = await api.request('GET', '/inventory/9223372036854775807', {
      headers: { Authorization: api.authorization },
    });
    expect(read.text).toBe('{"petId":9223372036854775807,"quantity":2,"status":"pending","reorderPoint":5}');
    expect(read.headers.get('etag')).toBe('"2-pending"');
    expect((await api.list()).text).toBe(
      '[{"petId":-9223372036854775808,"quantity":1,"status":"pending"},{"petId":7,"quantity":3,"status":"available"},' +
        '{"petId":9007199254740993,"quantity":5,"status":"sold"},' +
        '{"petId":9223372036854775807,"quantity":2,"status":"pending","reorderPoint":5}]',
    );
    const quantity = await patch('/inventory/9223372036854775807', '{"quantity": 9, "reason": "loss"}');
    expectUpdated(quantity, '{"petId":9223372036854775807,"quantity":9,"status":"pending","reorderPoint":5}');
    const cleared = await patch('/inventory/9223372036854775807', '{"reorderPoint": null}');
    expectUpdated(cleared, '{"petId":9223372036854775807,"quantity":9,"status":"pending"}');
    expect(await api.tableItems()).toContainEqual(
      storedEntry('9223372036854775807', 9, 'pending', patchedBy()),
    );
  });

  test('refuses a reorder point out of range with 400 and changes nothing', async () => {
    await expectRejected(
      () => patch('/inventory/7', '{"reorderPoint": 2147483648}'),
      'reorderPoint must be an integer from 0 to 2147483647, or null to clear it',
    );
  });
});

describe('a valid update (rule 4)', () => {
  test('sets quantity, leaves status unchanged and returns the entry', async () => {
    const response = await patch('/inventory/7', '{"quantity": 40}');
    expectUpdated(response, '{"petId":7,"quantity":40,"status":"available"}');
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 40, 'available', patchedBy()));
  });

  test('{"status": "sold"} sets the status and leaves the quantity as it was', async () => {
    const response = await patch('/inventory/7', '{"status": "sold"}');
    expectUpdated(response, '{"petId":7,"quantity":3,"status":"sold"}');
    expect(response.headers.get('etag')).toBe('"3-sold"');
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 3, 'sold', patchedBy()));
  });

  test('{"quantity": 4, "status": "pending", "reason": "arrival"} sets both and records the arrival and the key id', async () => {
    const response = await patch(
      '/inventory/9007199254740993',
      '{"quantity": 4, "status": "pending", "reason": "arrival"}',
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe('{"petId":9007199254740993,"quantity":4,"status":"pending"}');
    expect(await api.tableItems()).toContainEqual(
      storedEntry('9007199254740993', 4, 'pending', patchedBy('arrival')),
    );
  });

  test("a return then a count: the entry records the last change's reason", async () => {
    expect((await patch('/inventory/7', '{"quantity": 5, "reason": "return"}')).status).toBe(200);
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 5, 'available', patchedBy('return')));
    expect((await patch('/inventory/7', '{"quantity": 4}')).status).toBe(200);
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 4, 'available', patchedBy('adjustment')));
  });

  test('sets the value rather than adding to it, so repeating it changes nothing but the time of the change (idempotent)', async () => {
    const first = await patch('/inventory/7', '{"quantity": 9}');
    const after = await api.tableItems();
    const second = await patch('/inventory/7', '{"quantity": 9}');
    expect(second.text).toBe(first.text);
    // The second PATCH is a write of the same values: only its `changedAt` is its own.
    const withoutRequest = (items: Record<string, string>[]) => items.map(({ changedAt, ...item }) => item);
    expect(withoutRequest(await api.tableItems())).toEqual(withoutRequest(after));
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 9, 'available', patchedBy()));
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

describe('bodies the contract refuses are 400 and leave the entry unchanged', () => {
  test.each([
    [
      '{"reason": "return"}',
      'request body must contain at least one of quantity, adjustBy, status, reorderPoint',
    ],
    ['{"status": "lost"}', 'status must be one of available, pending, sold'],
    ['{"quantity": 1, "reason": "theft"}', 'reason must be one of arrival, return, adjustment, sale, loss'],
    [
      '{"status": "sold", "note": "x"}',
      'request body may only contain quantity, adjustBy, status, reorderPoint, reason; not allowed: "note"',
    ],
  ])('%s', async (body, message) => {
    await expectRejected(() => patch('/inventory/7', body), message);
  });
});

describe('an unknown pet is 404 not_found (rule 2)', () => {
  test('names -0 as the pet 0 it is', async () => {
    const response = await patch('/inventory/-0', '{"quantity": 1}');
    expect(JSON.parse(response.text).message).toBe('no inventory entry for petId 0');
  });
});

describe('requests as API Gateway delivers them (docs/contract.md; local-aws/behaviour.md E1, E3)', () => {
  test('a percent-encoded petId reaches the function encoded and is decoded once: %37 is pet 7', async () => {
    const response = await patch('/inventory/%37', '{"quantity": 17}');
    expect(response.text).toBe('{"petId":7,"quantity":17,"status":"available"}');
    expect(await api.tableItems()).toContainEqual(storedEntry('7', 17, 'available', patchedBy()));
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

describe('Idempotency-Key (docs/contract.md "Inventory semantics")', () => {
  const json = { 'Content-Type': 'application/json' };

  test('a repeat answers the first answer, marked Idempotent-Replayed, and applies nothing more; another body under the key is 422', async () => {
    const headers = { ...json, 'Idempotency-Key': 'patch-7' };
    const first = await patch('/inventory/7', '{"quantity": 9, "reason": "arrival"}', headers);
    expectUpdated(first, '{"petId":7,"quantity":9,"status":"available"}');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await patch('/inventory/7', '{"quantity": 4}')).status).toBe(200);

    const repeat = await patch('/inventory/7', '{"quantity": 9, "reason": "arrival"}', headers);
    expect([repeat.status, repeat.text, repeat.headers.get('etag')]).toEqual([
      200,
      first.text,
      '"9-available"',
    ]);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.tableItems()).find((item) => item.petId === '7')).toEqual(
      storedEntry('7', 4, 'available', patchedBy()),
    );
    const other = await patch('/inventory/7', '{"quantity": 8}', headers);
    expect([other.status, JSON.parse(other.text)]).toEqual([
      422,
      {
        code: 'idempotency_key_reused',
        message: 'this Idempotency-Key was used with another update in the last 24 hours',
        status: 422,
      },
    ]);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  test('a refusal is remembered and its repeat is marked Idempotent-Replayed too', async () => {
    const headers = { ...json, 'Idempotency-Key': 'patch-7-stale', 'If-Match': '"1-available"' };
    const message = 'If-Match does not match the current entry of petId 7';
    const first = await patch('/inventory/7', '{"quantity": 1}', headers);
    expect([first.status, JSON.parse(first.text), first.headers.get('idempotent-replayed')]).toEqual([
      412,
      { code: 'precondition_failed', message, status: 412 },
      null,
    ]);
    expect((await patch('/inventory/7', '{"quantity": 1}')).status).toBe(200);
    const repeat = await patch('/inventory/7', '{"quantity": 1}', headers);
    expect([repeat.status, repeat.text, repeat.headers.get('idempotent-replayed')]).toEqual([
      412,
      first.text,
      'true',
    ]);
  });
});
