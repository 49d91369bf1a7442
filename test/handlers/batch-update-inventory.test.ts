/**
 * functions/batch-update-inventory invoked directly with REST proxy events (payload 1.0) against a real DynamoDB
 * API (in-memory dynalite): docs/contract.md "Inventory semantics" (the batch) and "Store orders"
 * (`Idempotency-Key`). A writer between the batch's read and its transaction is a real PutItem sent just before
 * the handler's transaction: the cancelled transaction is 412 at its index, or read and decided again.
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
} from '#test/support/handler-suite.ts';
import { type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import {
  changeTimeFormat,
  inventoryRecord,
  putItems,
  type RawItem,
  scanTable,
} from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const suite = handlerSuite<ProxyHandler>(() => import('#functions/batch-update-inventory/handler.ts'), [], {
  IDEMPOTENCY_TABLE_NAME: testTableNames.idempotency,
});

startEachTestFromEntries(suite);
const initial = startingEntries;
const keyId = eventKeyId;

const jsonContentType = { 'Content-Type': 'application/json' };

/** An entry as the batch leaves it: its values and the change's reason (default adjustment) and key id. */
const changed = (petId: string, quantity: number, status: string, reason = 'adjustment') =>
  inventoryRecord(petId, quantity, status, {
    reason,
    keyId,
    changedAt: expect.stringMatching(changeTimeFormat),
  });

const storedItems = () => scanTable(suite.db.client, testTableNames.inventory);

/** POST /inventory/batch with `body` (a value, sent as JSON, or text) and `headers` beside the JSON content type. */
function batch(body: unknown, headers: Record<string, string> = {}): Promise<APIGatewayProxyResult> {
  const event = restProxyEvent({
    method: 'POST',
    resource: '/inventory/batch',
    path: '/inventory/batch',
    headers: { ...jsonContentType, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return suite.handler(event, lambdaContext('batchUpdateInventory'));
}

describe('batchUpdateInventory', () => {
  test('applies every change in one answer, in the request order, each entry with its new etag', async () => {
    const result = await batch(
      '{"changes": [{"petId": 9223372036854775807, "quantity": 30, "reason": "arrival"},' +
        ' {"petId": 5, "status": "available", "ifMatch": "\\"10-pending\\""}, {"petId": -7, "quantity": 0, "status": "pending"}]}',
    );

    expect(result).toStrictEqual({
      statusCode: 200,
      headers: jsonContentType,
      body:
        '{"items":[{"petId":9223372036854775807,"quantity":30,"status":"available","etag":"\\"30-available\\""},' +
        '{"petId":5,"quantity":10,"status":"available","etag":"\\"10-available\\""},' +
        '{"petId":-7,"quantity":0,"status":"pending","etag":"\\"0-pending\\""}]}',
    });
    expect(await storedItems()).toStrictEqual([
      changed('-7', 0, 'pending'),
      changed('5', 10, 'available'),
      changed('9223372036854775807', 30, 'available', 'arrival'),
    ]);
  });

  test.each([
    [
      0,
      404,
      'not_found',
      [
        { petId: 6, quantity: 1 },
        { petId: 5, quantity: 2 },
      ],
      'no inventory entry for petId 6',
    ],
    [
      1,
      404,
      'not_found',
      [
        { petId: 5, quantity: 2 },
        { petId: 6, quantity: 1 },
      ],
      'no inventory entry for petId 6',
    ],
    [
      1,
      412,
      'precondition_failed',
      [
        { petId: -7, quantity: 2 },
        { petId: 5, quantity: 2, ifMatch: '"11-pending"' },
        { petId: 6, quantity: 1 },
      ],
      'ifMatch does not match the current entry of petId 5',
    ],
  ])(
    'refused at element %i: %i naming it, nothing changes',
    async (index, status, code, changes, message) => {
      expect(await batch({ changes })).toStrictEqual(
        errorResult(status, code, `changes[${index}]: ${message}`),
      );
      expect(await storedItems()).toStrictEqual(initial);
    },
  );

  test.each([
    ['no change', [], 'changes must be an array of 1 to 100 changes; it holds 0'],
    [
      '101 changes',
      Array.from({ length: 101 }, (_, petId) => ({ petId, quantity: 1 })),
      'changes must be an array of 1 to 100 changes; it holds 101',
    ],
    [
      'an element without values',
      [{ petId: 5, quantity: 1 }, { petId: -7 }],
      'changes[1]: a change must contain at least one of quantity, adjustBy, status, reorderPoint',
    ],
    [
      'a petId twice',
      [
        { petId: 5, quantity: 1 },
        { petId: 5, status: 'sold' },
      ],
      'changes[1]: petId 5 is changed by changes[0] already',
    ],
    [
      'an unknown member',
      [{ petId: 5, quantity: 1, extra: true }],
      'changes[0]: a change may only contain petId, quantity, adjustBy, status, reorderPoint, reason, ifMatch; not allowed: "extra"',
    ],
    [
      'no petId',
      [{ quantity: 1 }],
      'changes[0]: petId must be an integer from -9223372036854775808 to 9223372036854775807',
    ],
    [
      'an ifMatch that is not a string',
      [{ petId: 5, quantity: 1, ifMatch: 12 }],
      'changes[0]: ifMatch must be * or entity tags as If-Match takes them, such as "\\"12-available\\""',
    ],
    [
      'an element that is not an object',
      [5],
      'changes[0]: a change must be a JSON object such as {"petId": 7, "quantity": 5}',
    ],
  ])('400 for %s, nothing changes', async (_, changes, message) => {
    expect(await batch({ changes })).toStrictEqual(errorResult(400, 'invalid_request', message));
    expect(await storedItems()).toStrictEqual(initial);
  });

  test('400 for a body that is not an object of changes', async () => {
    expect(await batch('[]')).toStrictEqual(
      errorResult(
        400,
        'invalid_request',
        'request body must be a JSON object such as {"changes": [{"petId": 7, "quantity": 5}]}',
      ),
    );
    expect(await batch({ changes: [], more: 1 })).toStrictEqual(
      errorResult(400, 'invalid_request', 'request body may only contain changes; not allowed: "more"'),
    );
  });

  test('an Idempotency-Key answers the first answer again, marked Idempotent-Replayed, and applies once; another batch under it is 422', async () => {
    const headers = { 'Idempotency-Key': 'shipment-1' };
    const first = await batch({ changes: [{ petId: 5, quantity: 12, ifMatch: '"10-pending"' }] }, headers);
    expect(first.statusCode).toBe(200);
    expect(first.headers).not.toHaveProperty('Idempotent-Replayed');
    await putItems(suite.db.client, testTableNames.inventory, [inventoryRecord('5', 1, 'sold')]);

    expect(
      await batch({ changes: [{ petId: 5, quantity: 12, ifMatch: '"10-pending"' }] }, headers),
    ).toStrictEqual({ ...first, headers: { ...first.headers, 'Idempotent-Replayed': 'true' } });
    expect(await batch({ changes: [{ petId: 5, quantity: 13 }] }, headers)).toStrictEqual(
      errorResult(
        422,
        'idempotency_key_reused',
        'this Idempotency-Key was used with another batch in the last 24 hours',
      ),
    );
    expect(await storedItems()).toStrictEqual([initial[0], inventoryRecord('5', 1, 'sold'), initial[2]]);
  });

  /**
   * Writes `item` with a raw PutItem just before the handler's next TransactWriteItems is sent: another writer
   * between the batch's read and its transaction, on the same DynamoDB. Returns the middleware's removal.
   */
  async function writeBeforeNextTransaction(item: RawItem): Promise<() => void> {
    // The handler's own client: the module the handler imported (loaded once the test DynamoDB was set).
    const { documentClient } = await import('#lib/clients/dynamodb.ts');
    let written = false;
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && !written) {
          written = true;
          await putItems(suite.db.client, testTableNames.inventory, [item]);
        }
        return next(args);
      },
      { step: 'initialize', name: 'raceBeforeTransaction' },
    );
    return () => documentClient.middlewareStack.remove('raceBeforeTransaction');
  }

  test('an entry changed between the read and the transaction: the cancellation reason names the index, 412', async () => {
    const raced = inventoryRecord('5', 11, 'pending', {
      reason: 'import',
      changedAt: '2026-11-27T00:00:00.000Z',
    });
    const done = await writeBeforeNextTransaction(raced);
    try {
      const changes = [
        { petId: -7, quantity: 2 },
        { petId: 5, quantity: 12, ifMatch: '"10-pending"' },
      ];
      expect(await batch({ changes })).toStrictEqual(
        errorResult(
          412,
          'precondition_failed',
          'changes[1]: ifMatch does not match the current entry of petId 5',
        ),
      );
    } finally {
      done();
    }
    expect(await storedItems()).toStrictEqual([initial[0], raced, initial[2]]);
  });

  test('an entry changed between the read and the transaction without ifMatch: read and decided again, 200', async () => {
    const done = await writeBeforeNextTransaction(inventoryRecord('5', 11, 'pending'));
    try {
      expect(
        await batch({
          changes: [
            { petId: -7, quantity: 2 },
            { petId: 5, status: 'sold' },
          ],
        }),
      ).toStrictEqual({
        statusCode: 200,
        headers: jsonContentType,
        body:
          '{"items":[{"petId":-7,"quantity":2,"status":"sold","etag":"\\"2-sold\\""},' +
          '{"petId":5,"quantity":11,"status":"sold","etag":"\\"11-sold\\""}]}',
      });
    } finally {
      done();
    }
    expect(await storedItems()).toStrictEqual([
      changed('-7', 2, 'sold'),
      changed('5', 11, 'sold'),
      initial[2],
    ]);
  });
});
