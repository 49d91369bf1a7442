/**
 * getInventoryItem and conditional updateInventory over HTTP (docs/contract.md "Inventory semantics"; RFC 9110
 * §8.8.3 ETag, §13.1.1 If-Match): the strong ETag of an entry, If-Match honoured with 412
 * `precondition_failed` and nothing changed, the order of checks (400, then 404, then 412), and 200
 * concurrent conditional PATCHes carrying the same ETag of which exactly one wins. Every response is checked
 * against openapi.yaml.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { manyConnectionsTimeoutMs } from '#test/support/connection-retries.ts';
import { expectContractError, observe } from '#test/support/contract-oracle.ts';
import {
  badPetIdMessage,
  declaredRequest,
  expectError,
  expectRefused,
} from '#test/support/http-assertions.ts';
import { type RawResponse, rawClient, sendJson } from '#test/support/raw-http.ts';
import { storedEntry, testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite();

beforeEach(async () => {
  await api.inventory.putMany([
    { petId: '7', quantity: 3, status: 'available' },
    { petId: '9223372036854775807', quantity: 2, status: 'pending' },
  ]);
});

const get = (petId: string) => declaredRequest(api, 'GET', `/inventory/${petId}`);
const patch = (petId: string, body: string, headers: Record<string, string> = {}) =>
  declaredRequest(api, 'PATCH', `/inventory/${petId}`, { body, headers });

describe('getInventoryItem', () => {
  test('returns the entry with its strong ETag', async () => {
    const response = await get('9223372036854775807');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('etag')).toBe('"2-pending"');
    expect(response.text).toBe('{"petId":9223372036854775807,"quantity":2,"status":"pending"}');
  });

  test.each([
    ['404 not_found for a pet with no entry', '8', 404, 'not_found', 'no inventory entry for petId 8'],
    ['400 invalid_request for a bad petId', '07', 400, 'invalid_request', badPetIdMessage],
  ])('answers %s', async (_name, petId, status, code, message) => {
    expectError(await get(petId), status, code, message);
  });

  test('a status change alone changes the ETag: the old tag is then 412 and changes nothing', async () => {
    const before = (await get('7')).headers.get('etag') as string;
    const update = await patch('7', '{"status": "pending"}');
    const after = update.headers.get('etag') as string;
    expect(after).not.toBe(before);
    expect((await get('7')).headers.get('etag')).toBe(after);
    const table = await api.tableItems();
    const stale = await patch('7', '{"status": "sold"}', { 'If-Match': before });
    expectError(stale, 412, 'precondition_failed', 'If-Match does not match the current entry of petId 7');
    expect(await api.tableItems()).toEqual(table);
    const current = await patch('7', '{"status": "available"}', { 'If-Match': after });
    expect(current.status).toBe(200);
  });

  test('the ETag changes with the entry and is the one PATCH returns', async () => {
    const update = await patch('7', '{"quantity": 11}');
    expect(update.headers.get('etag')).toBe('"11-available"');
    expect((await get('7')).headers.get('etag')).toBe('"11-available"');
  });
});

describe('updateInventory with If-Match', { timeout: manyConnectionsTimeoutMs }, () => {
  test('updates when If-Match is the current ETag and returns the new one', async () => {
    const { headers } = await get('7');
    const response = await patch('7', '{"quantity": 2}', { 'If-Match': headers.get('etag') as string });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"2-available"');
    expect(response.text).toBe('{"petId":7,"quantity":2,"status":"available"}');
    expect(await api.tableItems()).toContainEqual(
      storedEntry('7', 2, 'available', { reason: 'adjustment', keyId: api.keyId }),
    );
  });

  const stale = [412, 'precondition_failed', 'If-Match does not match the current entry of petId 7'] as const;
  const malformed = [
    400,
    'invalid_request',
    'If-Match must be * or a comma-separated list of entity tags such as "12-available"',
  ] as const;
  test.each<[string, string, number, string, string]>([
    ['a stale tag', '"4-available"', ...stale],
    ['the tag of another status', '"3-sold"', ...stale],
    ['the weak form of the current tag', 'W/"3-available"', ...stale],
    ['a tag the service never issues', '"xyzzy"', ...stale],
    ...['3-available', '"3-available', '*, "3-available"', ',', 'W/3'].map(
      (ifMatch): [string, string, number, string, string] => [
        `the malformed value ${ifMatch}`,
        ifMatch,
        ...malformed,
      ],
    ),
  ])(
    'answers If-Match of %s with %i %s and changes nothing',
    async (_case, ifMatch, status, code, message) => {
      await expectRefused(
        api,
        () => patch('7', '{"quantity": 2}', { 'If-Match': ifMatch }),
        status,
        code,
        message,
      );
    },
  );

  test.each([
    ['*', '*'],
    ['a list holding the current tag', '"1-sold", "3-available"'],
  ])('updates with If-Match %s', async (_case, ifMatch) => {
    const response = await patch('7', '{"quantity": 5}', { 'If-Match': ifMatch });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"5-available"');
  });

  test('answers 404 (not 412) for a pet with no entry, whatever If-Match says', async () => {
    const response = await patch('8', '{"quantity": 5}', { 'If-Match': '"3-available"' });
    expectError(response, 404, 'not_found', 'no inventory entry for petId 8');
  });

  test('200 concurrent PATCHes with the same ETag (200 connections): exactly one 200, the rest 412, one write landed', async () => {
    const etag = (await get('7')).headers.get('etag') as string;
    // Every PATCH on its own connection, all in flight at once.
    const client = rawClient(api.baseUrl, { maxSockets: 200, retryConnectionErrors: true });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        sendJson(client, api.authorization, 'PATCH', '/inventory/7', `{"quantity": ${1000 + index}}`, [
          ['If-Match', etag],
        ]),
      ),
    ).finally(() => client.close());
    const winners = responses.filter((response) => response.status === 200);
    expect(winners).toHaveLength(1);
    const winner = winners[0] as RawResponse;
    const written = JSON.parse(winner.text).quantity as number;
    expect(winner.text).toBe(`{"petId":7,"quantity":${written},"status":"available"}`);
    expect(winner.headers.etag).toBe(`"${written}-available"`);
    const losers = responses.filter((response) => response !== winner);
    expect(losers).toHaveLength(199);
    for (const response of losers) {
      expectContractError(observe(response), 412, 'If-Match does not match the current entry of petId 7');
    }
    expect(await api.tableItems()).toEqual([
      storedEntry('7', written, 'available', { reason: 'adjustment', keyId: api.keyId }),
      storedEntry('9223372036854775807', 2, 'pending', { reason: 'import' }),
    ]);
  });
});
