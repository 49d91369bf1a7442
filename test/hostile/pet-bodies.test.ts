/**
 * Hostile addPet bodies (docs/contract.md "Pets", "Integers in request bodies", "Errors"), property-based: 400
 * generated bodies per run, sent over HTTP with a valid key: every member with values of every JSON type and
 * edge (ids near and beyond int64, fractions and exponents, names of 0, 200, 201 characters, astral and lone
 * surrogates, lists of 0 to 22 items, `null`s), unknown members, non-objects and text that is not JSON.
 *
 * Oracle (test/support/contract-oracle.ts `contractNewPet`, independent of lib/): a valid body is 201 with the
 * exact Pet and `Location`, or 409 `conflict` when its id exists; any other body is 400 `invalid_request` with
 * the message of one of its problems. Never a 5xx. After every request the inventory table is exactly as before
 * plus, for a 201 only, the new pet's entry (quantity 0, the pet's status and name), which getPetById answers
 * with the same Pet.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  contractNewPet,
  contractPetJson,
  expectContractError,
  isContractAssignedId,
  observe,
} from '#test/support/contract-oracle.ts';
import { jsonObjectOf } from '#test/support/json-arbitraries.ts';
import { type RawClient, rawClient, sendJson } from '#test/support/raw-http.ts';
import { startTestApi, storedEntry, type TestApi } from '#test/support/test-api.ts';

let api: TestApi;
let client: RawClient;

beforeAll(async () => {
  api = await startTestApi();
  client = rawClient(api.baseUrl);
  await api.inventory.putMany([{ petId: '7', quantity: 3, status: 'sold' }]);
});
afterAll(async () => {
  client?.close();
  await api?.close();
});

const encoder = new TextEncoder();

/** Integer texts for ids: int64 edges and beyond, other number forms, other JSON types. */
const idValue = fc.oneof(
  { weight: 3, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) },
  fc.constantFrom(
    '7',
    '9223372036854775807',
    '-9223372036854775808',
    '9223372036854775808',
    '-9223372036854775809',
    '7.0',
    '70e-1',
    '1.5',
    '1e-400',
    '4.9999999999999999',
    '1e19',
    '-0',
  ),
  fc.constantFrom('"7"', 'null', 'true', '[]', '{}'),
);
const nameValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map((s) => JSON.stringify(s)),
  },
  fc.constantFrom(
    '""',
    `"${'x'.repeat(200)}"`,
    `"${'x'.repeat(201)}"`,
    `"${'🐕'.repeat(200)}"`,
    `"${'🐕'.repeat(201)}"`,
    '"\\ud800"',
    '"a\\udc00b"',
    '"\\u0000"',
    '"\\u200b"',
    '7',
    'null',
    '["Rex"]',
  ),
);
const labelValue = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(idValue, nameValue).map(([id, name]) => `{"id":${id},"name":${name}}`) },
  fc.tuple(nameValue).map(([name]) => `{"name":${name}}`),
  fc.tuple(idValue).map(([id]) => `{"id":${id}}`),
  fc.tuple(idValue, nameValue).map(([id, name]) => `{"id":${id},"name":${name},"x":1}`),
  fc.constantFrom('null', '"Dogs"', '[]', '7'),
);
const urlValue = fc.oneof(
  { weight: 3, arbitrary: fc.webUrl().map((url) => JSON.stringify(url)) },
  fc.constantFrom('""', `"${'u'.repeat(2000)}"`, `"${'u'.repeat(2001)}"`, '7', 'null', '"\\udfff"'),
);
/** A JSON array of 0 to 22 items, most of them valid, or another JSON type. */
const listOf = (item: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(item, { maxLength: 4 }).map((items) => `[${items.join(',')}]`) },
    fc
      .integer({ min: 19, max: 22 })
      .chain((length) =>
        fc.array(item, { minLength: length, maxLength: length }).map((items) => `[${items.join(',')}]`),
      ),
    fc.constantFrom('null', '{}', '"a"'),
  );
const statusValue = fc.constantFrom(
  '"available"',
  '"pending"',
  '"sold"',
  '"Available"',
  '"lost"',
  '""',
  'null',
  '1',
);
const member = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(fc.constant('id'), idValue) },
  { weight: 4, arbitrary: fc.tuple(fc.constant('name'), nameValue) },
  fc.tuple(fc.constant('category'), labelValue),
  fc.tuple(fc.constant('photoUrls'), listOf(urlValue)),
  fc.tuple(fc.constant('tags'), listOf(labelValue)),
  fc.tuple(fc.constant('status'), statusValue),
  fc.tuple(
    fc.constantFrom('owner', 'Name', 'quantity', 'petId', 'photoURLs', ''),
    fc.constantFrom('1', '"x"', 'null'),
  ),
);
const body = fc.oneof(
  {
    weight: 8,
    arbitrary: jsonObjectOf(member, 6),
  },
  fc.constantFrom('[]', '"Rex"', 'null', '{', '', '{"name": "Rex",}', '{"name": "Rex"} x'),
  fc.string({ maxLength: 30 }),
);

/** `POST /pets` with a valid key, `Content-Type: application/json` and `text` as the body. */
function sendAddPet(text: string) {
  return sendJson(client, api.authorization, 'POST', '/pets', text);
}

/** Sends `text` as an addPet body and checks the answer and the inventory table against the oracle. */
async function checkAddPet(text: string): Promise<number> {
  const before = await api.tableItems();
  const response = await sendAddPet(text);
  const observed = observe(response);
  const context = `${text.slice(0, 300)} -> ${response.status} ${response.text.slice(0, 300)}`;
  const verdict = contractNewPet(encoder.encode(text));
  const after = await api.tableItems();
  if ('problems' in verdict) {
    const { message } = expectContractError(observed, 400);
    expect(verdict.problems, context).toContain(message);
    expect(after, context).toEqual(before);
    return response.status;
  }
  const { pet } = verdict;
  if (pet.id !== undefined && before.some((item) => item.petId === pet.id)) {
    expect(response.status, context).toBe(409);
    expect(observed.contentType).toBe('application/json');
    expect(JSON.parse(response.text)).toEqual({
      code: 'conflict',
      message: `a pet with id ${pet.id} exists`,
      status: 409,
    });
    expect(after, context).toEqual(before);
    return response.status;
  }
  expect(response.status, context).toBe(201);
  expect(observed.contentType).toBe('application/json');
  const id = pet.id ?? (/^\{"id":([1-9][0-9]*),/.exec(response.text)?.[1] as string);
  if (pet.id === undefined) expect(isContractAssignedId(id), context).toBe(true);
  expect(response.text, context).toBe(contractPetJson({ ...pet, id }));
  expect(response.headers.location).toBe(`/v1/pets/${id}`);
  const added = after.find((item) => item.petId === id);
  expect(added, context).toMatchObject({ ...storedEntry(id, 0, pet.status), name: pet.name });
  expect(
    after.filter((item) => item !== added),
    context,
  ).toEqual(before);
  const read = await client.send({
    method: 'GET',
    path: `/pets/${id}`,
    headers: [['Authorization', api.authorization]],
  });
  expect(read.text, context).toBe(response.text);
  return response.status;
}

describe('hostile addPet bodies', () => {
  test.each([
    ['{"name": "Rex", "status": null}', 400],
    ['{"name": "Rex", "id": null}', 400],
    ['{"name": "Rex", "category": null}', 400],
    ['{"name": "Rex", "photoUrls": null}', 400],
    ['{"name": "Rex", "tags": null}', 400],
    [`{"name": "${'🐕'.repeat(200)}"}`, 201],
    [`{"name": "${'🐕'.repeat(201)}"}`, 400],
    ['{"name": "\\ud800"}', 400],
    ['{"name": "Rex", "id": 9223372036854775808}', 400],
    ['{"name": "Rex", "id": -9223372036854775807}', 201],
    ['{"name": "Rex", "id": 7}', 409],
    [`{"name": "Rex", "photoUrls": [${'"u",'.repeat(20)}"u"]}`, 400],
    [`{"name": "Rex", "tags": [${'{"id":1,"name":"t"},'.repeat(19)}{"id":1,"name":"t"}]}`, 201],
  ])('answers %s with %i', async (text, status) => {
    expect(await checkAddPet(text)).toBe(status);
  });

  // After the examples: a generated body may create one of their ids (fast-check favours the int64 edges).
  test('every generated body gets the contract answer and only a created pet changes the table', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        await checkAddPet(text);
      }),
      { numRuns: 400 },
    );
  });

  test('refuses a __proto__ member with 400 naming it (the guard of the JSON parser) and changes nothing', async () => {
    const before = await api.tableItems();
    const response = await sendAddPet('{"name": "Rex", "__proto__": {"x": 1}}');
    expectContractError(observe(response), 400, 'request body member "__proto__" is not allowed');
    expect(await api.tableItems()).toEqual(before);
  });
});
