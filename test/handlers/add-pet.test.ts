/**
 * functions/add-pet invoked in this process with REST proxy events (payload 1.0) against a real DynamoDB API
 * (in-memory dynalite), and its store (lib/pets/store.ts) on the same tables: docs/contract.md "Pets" and
 * "Exactly once under retries", docs/architecture.md "Writes exactly once". The ids the service draws for a pet
 * without `id` are set by the test where a collision is the subject (`drawnPetIds`), else drawn at random.
 */

import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from 'local-aws';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { keyClaim } from '#lib/idempotency/claim.ts';
import { petStore } from '#lib/pets/store.ts';
import { errorResult, eventKeyId, handlerSuite } from '#test/support/handler-suite.ts';
import { type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import {
  changeTimeFormat,
  clearInventory,
  inventoryRecord,
  putItems,
  type RawItem,
  scanTable,
} from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

/** The ids `newPetId` returns next, first to last; once empty it draws at random again. */
const drawnPetIds = vi.hoisted((): string[] => []);
vi.mock('#lib/assigned-ids.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('#lib/assigned-ids.ts')>();
  return { ...original, newPetId: () => drawnPetIds.shift() ?? original.newPetId() };
});

const suite = handlerSuite<ProxyHandler>(() => import('#functions/add-pet/handler.ts'), [], {
  IDEMPOTENCY_TABLE_NAME: testTableNames.idempotency,
});

/** The entry every test starts from: pet 5, imported without details. */
const entryFive = inventoryRecord('5', 2, 'sold');

beforeEach(async () => {
  drawnPetIds.length = 0;
  await clearInventory(suite.db.client, testTableNames.inventory);
  await putItems(suite.db.client, testTableNames.inventory, [entryFive]);
});

/** POST /pets with `body` (and an Idempotency-Key when given). */
function addPet(body: string, idempotencyKey?: string): Promise<APIGatewayProxyResult> {
  const headers = {
    'Content-Type': 'application/json',
    ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
  };
  const event = restProxyEvent({ method: 'POST', resource: '/pets', path: '/pets', headers, body });
  return suite.handler(event, lambdaContext('add-pet'));
}

/** A 201 of addPet: the Pet's JSON text and its Location. */
const created = (petId: string, body: string) => ({
  statusCode: 201,
  headers: { 'Content-Type': 'application/json', Location: `/v1/pets/${petId}` },
  body,
});

/** The item of a pet as addPet stores it: its entry (quantity 0), its details, the change `created` by `keyId`. */
function petItem(petId: string, status: string, details: RawItem, keyId?: string) {
  return {
    ...inventoryRecord(petId, 0, status, {
      reason: 'created',
      ...(keyId === undefined ? {} : { keyId }),
      changedAt: expect.stringMatching(changeTimeFormat),
    }),
    photoUrls: { L: [] },
    tags: { L: [] },
    ...details,
  };
}

const storedItems = () => scanTable(suite.db.client, testTableNames.inventory);

describe('addPet', () => {
  test('creates the pet of the given id with every detail, quantity 0, and answers 201 with Location', async () => {
    const body =
      '{"id": 9223372036854775807, "name": "Rex", "category": {"id": -1, "name": "Dogs"},' +
      ' "photoUrls": ["a"], "tags": [{"id": 2, "name": "friendly"}], "status": "pending"}';
    expect(await addPet(body)).toStrictEqual(
      created(
        '9223372036854775807',
        '{"id":9223372036854775807,"name":"Rex","category":{"id":-1,"name":"Dogs"},"photoUrls":["a"],' +
          '"tags":[{"id":2,"name":"friendly"}],"status":"pending"}',
      ),
    );
    expect(await storedItems()).toStrictEqual([
      entryFive,
      petItem(
        '9223372036854775807',
        'pending',
        {
          name: { S: 'Rex' },
          category: { M: { id: { N: '-1' }, name: { S: 'Dogs' } } },
          photoUrls: { L: [{ S: 'a' }] },
          tags: { L: [{ M: { id: { N: '2' }, name: { S: 'friendly' } } }] },
        },
        eventKeyId,
      ),
    ]);
  });

  test('assigns the drawn id to a pet without one', async () => {
    drawnPetIds.push('9007199254740991');
    expect(await addPet('{"name": "Rex"}')).toStrictEqual(
      created(
        '9007199254740991',
        '{"id":9007199254740991,"name":"Rex","photoUrls":[],"tags":[],"status":"available"}',
      ),
    );
    expect(await storedItems()).toStrictEqual([
      entryFive,
      petItem('9007199254740991', 'available', { name: { S: 'Rex' } }, eventKeyId),
    ]);
  });

  test('a drawn id that is taken is drawn again, and the entry holding it is left as it was', async () => {
    drawnPetIds.push('5', '5', '8');
    expect(await addPet('{"name": "Rex"}')).toStrictEqual(
      created('8', '{"id":8,"name":"Rex","photoUrls":[],"tags":[],"status":"available"}'),
    );
    expect(drawnPetIds).toStrictEqual([]);
    expect(await storedItems()).toStrictEqual([
      entryFive,
      petItem('8', 'available', { name: { S: 'Rex' } }, eventKeyId),
    ]);
  });

  test('three taken draws answer 500 without a fourth draw, and write nothing', async () => {
    drawnPetIds.push('5', '5', '5', '9');
    expect(await addPet('{"name": "Rex"}')).toStrictEqual(
      errorResult(500, 'internal_error', 'internal error'),
    );
    expect(drawnPetIds).toStrictEqual(['9']);
    expect(await storedItems()).toStrictEqual([entryFive]);
  });

  test('answers 409 conflict for an id that exists and changes nothing', async () => {
    expect(await addPet('{"id": 5, "name": "Five"}')).toStrictEqual(
      errorResult(409, 'conflict', 'a pet with id 5 exists'),
    );
    expect(await storedItems()).toStrictEqual([entryFive]);
  });

  test('answers 400 naming the first problem and writes nothing', async () => {
    expect(await addPet('{"name": "Rex", "status": "lost"}')).toStrictEqual(
      errorResult(400, 'invalid_request', 'status must be one of available, pending, sold'),
    );
    expect(await storedItems()).toStrictEqual([entryFive]);
  });
});

describe('the pet store (lib/pets/store.ts): a retry under an Idempotency-Key claim after the function died, and reads', () => {
  const store = () => petStore(toDocumentClient(suite.db.client), testTableNames.inventory);
  /** The claim of Idempotency-Key `key` for the request `pet`, as the handler makes it. */
  const keyed = (key: string, pet: object) => ({
    tableName: testTableNames.idempotency,
    claim: keyClaim('addPetClaim#', key, JSON.stringify(pet)),
  });

  test('a retry of an add without id answers the pet its claim holds and creates no second pet', async () => {
    const pet = { name: 'Rex', photoUrls: [], tags: [], status: 'available' as const };
    drawnPetIds.push('11', '12');
    const first = await store().add(pet, undefined, keyed('retry-1', pet));
    const retry = await store().add(pet, undefined, keyed('retry-1', pet));
    const expected = { ...pet, id: '11' };
    expect([first, retry]).toStrictEqual([expected, expected]);
    expect(await storedItems()).toStrictEqual([
      entryFive,
      petItem('11', 'available', { name: { S: 'Rex' } }),
    ]);
  });

  test('a retry of an add with a taken id of its own answers the pet, not exists; another pet under the key is key_reused', async () => {
    const pet = { id: '21', name: 'Rex', photoUrls: [], tags: [], status: 'sold' as const };
    const first = await store().add(pet, eventKeyId, keyed('retry-2', pet));
    const retry = await store().add(pet, eventKeyId, keyed('retry-2', pet));
    expect([first, retry]).toStrictEqual([pet, pet]);
    const other = { ...pet, id: '22' };
    expect(await store().add(other, eventKeyId, keyed('retry-2', other))).toBe('key_reused');
    expect(await storedItems()).toStrictEqual([
      entryFive,
      petItem('21', 'sold', { name: { S: 'Rex' } }, eventKeyId),
    ]);
  });

  test('get reads a pet back as added, every detail and id exact; an entry without details as a pet without name', async () => {
    const pet = {
      id: '-9223372036854775808',
      name: 'Rex',
      category: { id: '9223372036854775807', name: 'Dogs' },
      photoUrls: ['a', 'b'],
      tags: [{ id: '-1', name: 'friendly' }],
      status: 'pending' as const,
    };
    await store().add(pet, eventKeyId);
    expect(await store().get('-9223372036854775808')).toStrictEqual(pet);
    expect(await store().get('5')).toStrictEqual({ id: '5', photoUrls: [], tags: [], status: 'sold' });
    expect(await store().get('6')).toBeUndefined();
  });

  test('without a claim, a taken id is exists', async () => {
    const pet = { id: '5', name: 'Rex', photoUrls: [], tags: [], status: 'sold' as const };
    expect(await store().add(pet)).toBe('exists');
    expect(await storedItems()).toStrictEqual([entryFive]);
  });
});
