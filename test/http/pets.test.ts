/**
 * addPet and getPetById over HTTP (docs/contract.md "Pets"; docs/service-spec.md §9.4): a pet and its inventory
 * entry are one record (an added pet is listed with quantity 0 and the same status), exact int64 ids, every
 * rejected body answered 400 with nothing written, 409 for a taken id, and getPetById's Deprecation and Sunset
 * headers on every response it writes before the sunset. The 410 `gone` from the sunset on is proven in
 * test/handlers/get-pet-by-id.test.ts: a moved clock of this process cannot reach the functions, which run in
 * worker threads as a deployed Lambda runs in its own environment. Every response is checked against openapi.yaml.
 */
import { describe, expect, test } from 'vitest';
import { isContractAssignedId } from '#test/support/contract-oracle.ts';
import {
  badPetIdMessage,
  declaredRequest,
  expectError,
  expectRefused,
} from '#test/support/http-assertions.ts';
import { changeTimeFormat } from '#test/support/raw-tables.ts';
import { type TestResponse, testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite({ inventory: [{ petId: '5', quantity: 2, status: 'sold' }] });

const deprecationHeaders = { deprecation: '@1795392000', sunset: 'Wed, 30 Jun 2027 23:59:59 GMT' };

const addPet = (body: string, contentType = 'application/json') =>
  declaredRequest(api, 'POST', '/pets', { body, headers: { 'Content-Type': contentType } });

async function getPet(petId: string): Promise<TestResponse> {
  const response = await declaredRequest(api, 'GET', `/pets/${petId}`);
  expect(response.headers.get('deprecation')).toBe(deprecationHeaders.deprecation);
  expect(response.headers.get('sunset')).toBe(deprecationHeaders.sunset);
  return response;
}

describe('addPet', () => {
  test('creates the pet and its inventory entry (quantity 0, same status) and answers 201 with Location', async () => {
    const response = await addPet('{"name": "Rex", "status": "pending"}');
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    const id = /^\{"id":([1-9][0-9]*),/.exec(response.text)?.[1] as string;
    expect(isContractAssignedId(id), id).toBe(true);
    expect(response.headers.get('location')).toBe(`/v1/pets/${id}`);
    expect(response.text).toBe(`{"id":${id},"name":"Rex","photoUrls":[],"tags":[],"status":"pending"}`);

    const list = await api.list();
    expect(list.text).toContain(`{"petId":${id},"quantity":0,"status":"pending"}`);
    const entry = await api.request('GET', `/inventory/${id}`, {
      headers: { Authorization: api.authorization },
    });
    expect(entry.text).toBe(`{"petId":${id},"quantity":0,"status":"pending"}`);

    const pet = await getPet(id);
    expect(pet.status).toBe(200);
    expect(pet.text).toBe(response.text);
    // The entry records its creation: why, by which key, when.
    const stored = (await api.tableItems()).find((item) => item.petId === id);
    expect(stored).toMatchObject({ reason: 'created', keyId: api.keyId });
    expect(stored?.changedAt).toMatch(changeTimeFormat);
    expect(stored).not.toHaveProperty('orderId');
  });

  test('keeps every digit of int64 ids (pet, category, tags) and every detail', async () => {
    const body =
      '{"id": 9223372036854775807, "name": "Ünïcödé 🐕", "category": {"id": -9223372036854775808, "name": "Dogs"},' +
      ' "photoUrls": ["https://example.com/a.jpg", "b"], "tags": [{"id": 9007199254740993, "name": "friendly"}],' +
      ' "status": "available"}';
    const response = await addPet(body);
    expect(response.status).toBe(201);
    const expected =
      '{"id":9223372036854775807,"name":"Ünïcödé 🐕","category":{"id":-9223372036854775808,"name":"Dogs"},' +
      '"photoUrls":["https://example.com/a.jpg","b"],"tags":[{"id":9007199254740993,"name":"friendly"}],"status":"available"}';
    expect(response.text).toBe(expected);
    expect((await getPet('9223372036854775807')).text).toBe(expected);
    expect(await api.tableItems()).toContainEqual(
      expect.objectContaining({ petId: '9223372036854775807', quantity: '0', status: 'available' }),
    );
  });

  test('reads 7.0 and 70e-1 as the id 7 (integers decided on the source text)', async () => {
    const response = await addPet('{"id": 70e-1, "name": "Seven"}');
    expect(response.status).toBe(201);
    expect(response.text).toBe('{"id":7,"name":"Seven","photoUrls":[],"tags":[],"status":"available"}');
  });

  test('answers 409 conflict for an id that exists (an imported entry too) and changes nothing', async () => {
    await expectRefused(
      api,
      () => addPet('{"id": 5, "name": "Five"}'),
      409,
      'conflict',
      'a pet with id 5 exists',
    );
  });

  test.each([
    [
      '{"name": "Rex", "owner": "me"}',
      'a Pet may only contain id, name, category, photoUrls, tags, status; not allowed: "owner"',
    ],
    ['{"status": "available"}', 'name must be a string of 1 to 200 characters'],
    ['{"name": ""}', 'name must be a string of 1 to 200 characters'],
    [`{"name": "${'x'.repeat(201)}"}`, 'name must be a string of 1 to 200 characters'],
    ['{"name": "\\ud800"}', 'name must be a string of 1 to 200 characters'],
    ['{"name": "Rex", "status": "lost"}', 'status must be one of available, pending, sold'],
    ['{"name": "Rex", "id": 1.5}', 'id must be an integer from -9223372036854775808 to 9223372036854775807'],
    [
      '{"name": "Rex", "id": 1e-400}',
      'id must be an integer from -9223372036854775808 to 9223372036854775807',
    ],
    ['{"name": "Rex", "id": "7"}', 'id must be an integer from -9223372036854775808 to 9223372036854775807'],
    [
      '{"name": "Rex", "id": 9223372036854775808}',
      'id must be an integer from -9223372036854775808 to 9223372036854775807',
    ],
    ['{"name": "Rex", "category": {"id": 1}}', 'category.name must be a string of 1 to 200 characters'],
    [
      '{"name": "Rex", "category": {"id": 1, "name": "a", "x": 1}}',
      'category may only contain id and name; not allowed: "x"',
    ],
    [
      '{"name": "Rex", "tags": [{"id": 1.5, "name": "a"}]}',
      'tags[0].id must be an integer from -9223372036854775808 to 9223372036854775807',
    ],
    [
      `{"name": "Rex", "tags": [${Array(21).fill('{"id":1,"name":"a"}').join(',')}]}`,
      'tags must be an array of at most 20 items',
    ],
    ['{"name": "Rex", "photoUrls": [""]}', 'photoUrls[0] must be a string of 1 to 2000 characters'],
    ['{"name": "Rex", "photoUrls": "a"}', 'photoUrls must be an array of at most 20 items'],
    ['[]', 'request body must be a JSON object such as {"name": "Rex"}'],
    ['{"name":', 'request body must be valid JSON'],
  ])('rejects %s with 400 invalid_request and writes nothing', async (body, message) => {
    await expectRefused(api, () => addPet(body), 400, 'invalid_request', message);
  });

  test('rejects a body that is not JSON by its content type with 400', async () => {
    const response = await addPet('{"name": "Rex"}', 'text/plain');
    expectError(response, 400, 'invalid_request', 'Content-Type must be application/json');
  });
});

describe('addPet with Idempotency-Key (docs/contract.md "Pets")', () => {
  const keyed = (body: string, key: string) =>
    declaredRequest(api, 'POST', '/pets', {
      body,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
    });

  test('a repeat answers the first 201, marked Idempotent-Replayed, and adds no second pet; another pet under the key is 422', async () => {
    const body = '{"name": "Keyed Rex"}';
    const first = await keyed(body, 'add-rex');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const repeat = await keyed(body, 'add-rex');
    expect([repeat.status, repeat.text, repeat.headers.get('location')]).toEqual([
      201,
      first.text,
      first.headers.get('location'),
    ]);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.tableItems()).filter((item) => item.name === 'Keyed Rex')).toHaveLength(1);
    const other = await keyed('{"name": "Keyed Max"}', 'add-rex');
    expect([other.status, JSON.parse(other.text)]).toEqual([
      422,
      {
        code: 'idempotency_key_reused',
        message: 'this Idempotency-Key was used with another pet in the last 24 hours',
        status: 422,
      },
    ]);
    expect((await api.tableItems()).filter((item) => item.name === 'Keyed Max')).toHaveLength(0);
  });

  test('a 409 for an id that exists is remembered, and its repeat is marked Idempotent-Replayed', async () => {
    const body = '{"id": 5, "name": "Taken"}';
    const first = await keyed(body, 'add-5');
    expect([first.status, JSON.parse(first.text), first.headers.get('idempotent-replayed')]).toEqual([
      409,
      { code: 'conflict', message: 'a pet with id 5 exists', status: 409 },
      null,
    ]);
    const repeat = await keyed(body, 'add-5');
    expect([repeat.status, repeat.text, repeat.headers.get('idempotent-replayed')]).toEqual([
      409,
      first.text,
      'true',
    ]);
  });
});

describe('getPetById (deprecated)', () => {
  test('answers an entry imported without pet details with its status and no name', async () => {
    const response = await getPet('5');
    expect(response.status).toBe(200);
    expect(response.text).toBe('{"id":5,"photoUrls":[],"tags":[],"status":"sold"}');
  });

  test('keeps the pet status equal to the inventory entry status', async () => {
    const added = await addPet('{"id": 42, "name": "Answer", "status": "pending"}');
    expect(added.status).toBe(201);
    await api.patch('42', '{"quantity": 9}');
    const pet = JSON.parse((await getPet('42')).text);
    const entry = JSON.parse(
      (await api.request('GET', '/inventory/42', { headers: { Authorization: api.authorization } })).text,
    );
    expect(pet.status).toBe('pending');
    expect(entry).toEqual({ petId: 42, quantity: 9, status: 'pending' });
  });

  test.each([
    ['404 not_found', '8', 404, 'not_found', 'no pet with id 8'],
    ['400 invalid_request', '+8', 400, 'invalid_request', badPetIdMessage],
  ])('answers %s with both deprecation headers', async (_name, petId, status, code, message) => {
    expectError(await getPet(petId), status, code, message);
  });
});
