/**
 * The three handler modules with DynamoDB unreachable (connection refused): the HTTP functions answer 503
 * `service_unavailable` revealing no internals, and the authorizer fails with an error other than
 * `Unauthorized`, so API Gateway answers AUTHORIZER_FAILURE instead of a misleading 401 (docs/contract.md "Errors").
 */

import { lambdaContext } from 'local-aws';
import { newStoreCredentials } from 'local-aws/testing';
import { beforeAll, expect, test } from 'vitest';
import { freePort } from '#test/support/free-port.ts';
import {
  type InventoryHandlers,
  importInventoryHandlers,
  listInventoryEvent,
  updateInventoryEvent,
} from '#test/support/handler-suite.ts';
import { invokeStreaming, tokenAuthorizerEvent } from '#test/support/lambda-events.ts';
import { setFunctionEnvironment, testTableNames } from '#test/support/test-dynamodb.ts';

let handlers: InventoryHandlers;

beforeAll(async () => {
  // An endpoint on which nothing listens: a port taken from the OS, then released.
  setFunctionEnvironment(`http://127.0.0.1:${await freePort()}`, newStoreCredentials());
  handlers = await importInventoryHandlers();
});

const unavailable = {
  statusCode: 503,
  headers: { 'Content-Type': 'application/json' },
  body: '{"code":"service_unavailable","message":"the inventory database is unavailable; retry later","status":503}',
};

test('listInventory answers 503 service_unavailable without internals, before any byte of a list', async () => {
  const result = await invokeStreaming(
    handlers.listInventory,
    listInventoryEvent(),
    lambdaContext('listInventory'),
  );

  expect(result).toStrictEqual({ ...unavailable, complete: true });
  expect(result.body).not.toContain(testTableNames.inventory);
});

test('updateInventory answers 503 service_unavailable without internals', async () => {
  const event = updateInventoryEvent('5', '{"quantity":1}');

  const result = await handlers.updateInventory(event, lambdaContext('updateInventory'));

  expect(result).toStrictEqual(unavailable);
});

test('the authorizer fails with an error other than Unauthorized (not a refusal)', async () => {
  const event = tokenAuthorizerEvent(
    'Bearer psk_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG',
    'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/v1/GET/inventory',
  );

  const error = await handlers.authorizer(event, lambdaContext('authorizer')).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );

  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).not.toBe('Unauthorized');
});
