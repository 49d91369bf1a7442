/**
 * functions/update-inventory invoked directly with REST proxy events (payload 1.0) against a real DynamoDB
 * API (in-memory dynalite): docs/service-spec.md §4.2, docs/contract.md "InventoryUpdate", "Inventory semantics" and "Errors".
 */

import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from 'local-aws';
import { describe, expect, test } from 'vitest';
import {
  errorResult,
  eventKeyId,
  handlerSuite,
  startEachTestFromEntries,
  startingEntries,
  updateInventoryEvent,
} from '#test/support/handler-suite.ts';
import { badPetIdMessage } from '#test/support/http-assertions.ts';
import type { ProxyHandler, ProxyRequest } from '#test/support/lambda-events.ts';
import { changeTimeFormat, inventoryRecord, scanTable } from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const suite = handlerSuite<ProxyHandler>(() => import('#functions/update-inventory/handler.ts'), [], {
  IDEMPOTENCY_TABLE_NAME: testTableNames.idempotency,
});

startEachTestFromEntries(suite);
const initial = startingEntries;
const keyId = eventKeyId;

/** Any `changedAt` as the writers record it. */
const anyChangeTime = expect.stringMatching(changeTimeFormat);

/** An entry as a PATCH leaves it: its values and the change's reason (default adjustment) and key id. */
const patched = (petId: string, quantity: number, status: string, reason = 'adjustment') =>
  inventoryRecord(petId, quantity, status, { reason, keyId, changedAt: anyChangeTime });

/** Every item of the inventory table, read raw. */
const storedItems = () => scanTable(suite.db.client, testTableNames.inventory);

const jsonContentType = { 'Content-Type': 'application/json' };

/** PATCH /inventory/{petId} with `body`; headers default to a JSON content type. */
function updateInventory(
  petId: string,
  body: string | null,
  options: Partial<Pick<ProxyRequest, 'headers' | 'isBase64Encoded' | 'query'>> = {},
): Promise<APIGatewayProxyResult> {
  const { headers = jsonContentType, ...request } = options;
  const event = updateInventoryEvent(petId, body, headers, request);
  return suite.handler(event, lambdaContext('updateInventory'));
}

const requestBodyRequired = 'request body is required: a JSON object such as {"quantity": 5}';

describe('updateInventory success', () => {
  test.each([
    {
      title: 'sets quantity, returns the exact updated item and leaves status unchanged',
      body: '{"quantity":42}',
      answer: ['"42-pending"', '{"petId":5,"quantity":42,"status":"pending"}'],
      entry: [42, 'pending'] as const,
    },
    {
      title:
        '{"status":"sold"} sets the status, leaves the quantity as it was and records the default reason',
      body: '{"status":"sold"}',
      answer: ['"10-sold"', '{"petId":5,"quantity":10,"status":"sold"}'],
      entry: [10, 'sold'] as const,
    },
  ])('$title', async ({ body, answer: [etag, answer], entry: [quantity, status] }) => {
    const result = await updateInventory('5', body);

    expect(result).toStrictEqual({
      statusCode: 200,
      headers: { ...jsonContentType, ETag: etag },
      body: answer,
    });
    expect(await storedItems()).toStrictEqual([initial[0], patched('5', quantity, status), initial[2]]);
  });

  test('{"quantity":4,"status":"pending","reason":"arrival"} sets both and records the arrival and the key id', async () => {
    const result = await updateInventory('-7', '{"quantity":4,"status":"pending","reason":"arrival"}');

    expect(result).toStrictEqual({
      statusCode: 200,
      headers: { ...jsonContentType, ETag: '"4-pending"' },
      body: '{"petId":-7,"quantity":4,"status":"pending"}',
    });
    expect(await storedItems()).toStrictEqual([
      patched('-7', 4, 'pending', 'arrival'),
      initial[1],
      initial[2],
    ]);
  });

  test('each PATCH records its own reason: a return after an arrival leaves reason return', async () => {
    await updateInventory('5', '{"quantity":12,"reason":"arrival"}');
    const result = await updateInventory('5', '{"quantity":13,"reason":"return"}');

    expect(result.body).toBe('{"petId":5,"quantity":13,"status":"pending"}');
    expect(await storedItems()).toStrictEqual([
      initial[0],
      patched('5', 13, 'pending', 'return'),
      initial[2],
    ]);
  });

  test('is idempotent: the same update twice gives the same response and state', async () => {
    const first = await updateInventory('-7', '{"quantity":0}');
    const second = await updateInventory('-7', '{"quantity":0}');

    expect(second).toStrictEqual(first);
    expect(first.body).toBe('{"petId":-7,"quantity":0,"status":"sold"}');
    expect(await storedItems()).toStrictEqual([patched('-7', 0, 'sold'), initial[1], initial[2]]);
  });

  test('petId 9223372036854775807 is updated and written back digit for digit', async () => {
    const result = await updateInventory('9223372036854775807', '{"quantity":2147483647}');

    expect(result.statusCode).toBe(200);
    expect(result.body).toBe('{"petId":9223372036854775807,"quantity":2147483647,"status":"available"}');
    expect(await storedItems()).toStrictEqual([
      initial[0],
      initial[1],
      patched('9223372036854775807', 2147483647, 'available'),
    ]);
  });

  test('a base64-encoded body (isBase64Encoded: true) is decoded before parsing', async () => {
    const body = Buffer.from('{"quantity":8}', 'utf8').toString('base64');

    const result = await updateInventory('5', body, { isBase64Encoded: true });

    expect(result).toStrictEqual({
      statusCode: 200,
      headers: { ...jsonContentType, ETag: '"8-pending"' },
      body: '{"petId":5,"quantity":8,"status":"pending"}',
    });
    expect(await storedItems()).toContainEqual(patched('5', 8, 'pending'));
  });

  test('the Content-Type header name is matched in any case (CONTENT-TYPE)', async () => {
    const result = await updateInventory('5', '{"quantity":9}', {
      headers: { 'CONTENT-TYPE': 'application/json' },
    });

    expect(result.statusCode).toBe(200);
    expect(result.body).toBe('{"petId":5,"quantity":9,"status":"pending"}');
  });

  test('Content-Type application/json with charset and a +json type are accepted', async () => {
    const withCharset = await updateInventory('5', '{"quantity":11}', {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    const plusJson = await updateInventory('5', '{"quantity":12}', {
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });

    expect([withCharset.statusCode, plusJson.statusCode]).toStrictEqual([200, 200]);
    expect(plusJson.body).toBe('{"petId":5,"quantity":12,"status":"pending"}');
  });
});

describe('updateInventory refusals leave the table unchanged', () => {
  test('an unknown petId is 404 not_found and creates no item', async () => {
    const result = await updateInventory('6', '{"quantity":1}');

    expect(result).toStrictEqual(errorResult(404, 'not_found', 'no inventory entry for petId 6'));
    expect(await storedItems()).toStrictEqual(initial);
  });

  test('body null is 400 invalid_request', async () => {
    const result = await updateInventory('5', null);

    expect(result).toStrictEqual(errorResult(400, 'invalid_request', requestBodyRequired));
    expect(await storedItems()).toStrictEqual(initial);
  });

  test('an empty body is 400 invalid_request', async () => {
    const result = await updateInventory('5', '');

    expect(result).toStrictEqual(errorResult(400, 'invalid_request', requestBodyRequired));
  });

  test('a body without Content-Type is 400 invalid_request, not 415', async () => {
    const result = await updateInventory('5', '{"quantity":1}', { headers: {} });

    expect(result).toStrictEqual(
      errorResult(400, 'invalid_request', 'Content-Type must be application/json'),
    );
    expect(await storedItems()).toStrictEqual(initial);
  });

  test('an unknown member is 400 and the message names it; nothing is changed', async () => {
    const result = await updateInventory('5', '{"quantity":1,"status":"sold","price":3}');

    expect(result).toStrictEqual(
      errorResult(
        400,
        'invalid_request',
        'request body may only contain quantity, adjustBy, status, reorderPoint, reason; not allowed: "price"',
      ),
    );
    expect(await storedItems()).toStrictEqual(initial);
  });

  test.each([
    [
      '{"reason":"return"}',
      'request body must contain at least one of quantity, adjustBy, status, reorderPoint',
    ],
    ['{}', 'request body must contain at least one of quantity, adjustBy, status, reorderPoint'],
    ['{"status":"lost"}', 'status must be one of available, pending, sold'],
    ['{"quantity":1,"status":null}', 'status must be one of available, pending, sold'],
    ['{"quantity":1,"reason":"theft"}', 'reason must be one of arrival, return, adjustment, sale, loss'],
    ['{"status":"sold","reason":null}', 'reason must be one of arrival, return, adjustment, sale, loss'],
    ['{"status":"sold","quantity":"1"}', 'quantity must be an integer from 0 to 2147483647'],
  ])('%s is 400 invalid_request and changes nothing', async (body, message) => {
    const result = await updateInventory('5', body);

    expect(result).toStrictEqual(errorResult(400, 'invalid_request', message));
    expect(await storedItems()).toStrictEqual(initial);
  });

  test('quantity -1 is 400 with the quantity rule', async () => {
    const result = await updateInventory('5', '{"quantity":-1}');

    expect(result).toStrictEqual(
      errorResult(400, 'invalid_request', 'quantity must be an integer from 0 to 2147483647'),
    );
  });

  test('an invalid petId (01) is 400 before any lookup', async () => {
    const result = await updateInventory('01', '{"quantity":1}');

    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toStrictEqual({
      code: 'invalid_request',
      message: badPetIdMessage,
      status: 400,
    });
    expect(await storedItems()).toStrictEqual(initial);
  });

  test('malformed JSON is 400 invalid_request', async () => {
    const result = await updateInventory('5', '{"quantity":');

    expect(result).toStrictEqual(errorResult(400, 'invalid_request', 'request body must be valid JSON'));
  });
});

describe('updateInventory takes requests as API Gateway delivers them (docs/contract.md)', () => {
  test('a percent-encoded petId is decoded once: %35 is pet 5, %2D7 is pet -7', async () => {
    const five = await updateInventory('%35', '{"quantity":50}');
    const minusSeven = await updateInventory('%2D7', '{"quantity":70}');

    expect(five.body).toBe('{"petId":5,"quantity":50,"status":"pending"}');
    expect(minusSeven.body).toBe('{"petId":-7,"quantity":70,"status":"sold"}');
    expect(await storedItems()).toStrictEqual([
      patched('-7', 70, 'sold'),
      patched('5', 50, 'pending'),
      initial[2],
    ]);
  });

  test('%31%32 is petId 12 (404 here), and %2535 is decoded only once (the text %35, 400)', async () => {
    const twelve = await updateInventory('%31%32', '{"quantity":1}');
    const twice = await updateInventory('%2535', '{"quantity":1}');

    expect(twelve).toStrictEqual(errorResult(404, 'not_found', 'no inventory entry for petId 12'));
    expect(twice.statusCode).toBe(400);
    expect(JSON.parse(twice.body).message).toContain('petId must be an integer');
    expect(await storedItems()).toStrictEqual(initial);
  });

  test.each(['%FF', '%ZZ', '5%', '%E2%82'])(
    'malformed percent-encoding (%s) is 400 invalid_request and changes nothing',
    async (petId) => {
      const result = await updateInventory(petId, '{"quantity":1}');

      expect(result).toStrictEqual(
        errorResult(400, 'invalid_request', 'path parameter petId is not valid percent-encoded UTF-8'),
      );
      expect(await storedItems()).toStrictEqual(initial);
    },
  );

  test('If-Match on two lines whose names differ in case: every value counts, in any order (E4)', async () => {
    const event = updateInventoryEvent('5', '{"quantity":6}');
    event.headers = { ...event.headers, 'If-Match': '"10-pending"', 'if-match': '"1-sold"' };
    event.multiValueHeaders = {
      ...event.multiValueHeaders,
      'If-Match': ['"10-pending"'],
      'if-match': ['"1-sold"'],
    };

    const result = await suite.handler(event, lambdaContext('updateInventory'));

    expect(result).toStrictEqual({
      statusCode: 200,
      headers: { ...jsonContentType, ETag: '"6-pending"' },
      body: '{"petId":5,"quantity":6,"status":"pending"}',
    });
    expect(await storedItems()).toStrictEqual([initial[0], patched('5', 6, 'pending'), initial[2]]);
  });

  test('?dryRun=true is 400 naming the parameter and writes nothing', async () => {
    const result = await updateInventory('5', '{"quantity":99}', { query: { dryRun: ['true'] } });

    expect(result).toStrictEqual(
      errorResult(
        400,
        'invalid_request',
        'query parameters not allowed: "dryRun" (this operation takes none)',
      ),
    );
    expect(await storedItems()).toStrictEqual(initial);
  });
});

// The literals that are no integer of the range by their source text are refused in test/contract/responses.test.ts.
describe('updateInventory judges integers on the JSON source text (docs/contract.md "Integers in request bodies")', () => {
  test.each(['5', '5.0', '5e0', '0.5e1', '50e-1', '5.000000000000000000000000'])(
    'quantity %s is the integer 5',
    async (literal) => {
      const result = await updateInventory('5', `{"quantity":${literal}}`);

      expect(result.body).toBe('{"petId":5,"quantity":5,"status":"pending"}');
      expect(await storedItems()).toContainEqual(patched('5', 5, 'pending'));
    },
  );
});

describe('a 400 message names at most five unknown members, each cut to 64 characters', () => {
  test('seven long member names: the first five, cut, then how many more', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((letter) => letter.repeat(100));
    const body = JSON.stringify({ quantity: 1, ...Object.fromEntries(names.map((name) => [name, 1])) });

    const result = await updateInventory('5', body);

    const shown = names.slice(0, 5).map((name) => `"${name.slice(0, 64)}"`);
    expect(result).toStrictEqual(
      errorResult(
        400,
        'invalid_request',
        `request body may only contain quantity, adjustBy, status, reorderPoint, reason; not allowed: ${shown.join(', ')} and 2 more`,
      ),
    );
    expect(await storedItems()).toStrictEqual(initial);
  });
});

describe('bodies nested too deeply for a reviver (100,000 levels) are still judged by their members', () => {
  const deep = (opener: string, closer: string) => `${opener.repeat(100_000)}1${closer.repeat(100_000)}`;

  test('an unknown member holding a deep value is named', async () => {
    const result = await updateInventory('5', `{"quantity":1,"a":${deep('[', ']')}}`);

    expect(result).toStrictEqual(
      errorResult(
        400,
        'invalid_request',
        'request body may only contain quantity, adjustBy, status, reorderPoint, reason; not allowed: "a"',
      ),
    );
    expect(await storedItems()).toStrictEqual(initial);
  });

  test('a deep quantity is not an accepted quantity', async () => {
    const deepQuantity = await updateInventory('5', `{"quantity":${deep('{"a":', '}')}}`);

    expect(deepQuantity).toStrictEqual(
      errorResult(400, 'invalid_request', 'quantity must be an integer from 0 to 2147483647'),
    );
    expect(await storedItems()).toStrictEqual(initial);
  });
});
