/**
 * The functions' CORS headers (lib/http/cors.ts) when the environment allows origins: the real handler modules,
 * loaded with `CORS_ALLOWED_ORIGINS` set as the stack sets it, invoked with REST proxy events against dynalite.
 * Successes and Error bodies alike carry `Access-Control-Allow-Origin` for an allowed `Origin` and nothing for
 * any other; bodies and statuses are unchanged.
 */

import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from 'local-aws';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { corsOriginsEnv } from '#lib/http/cors.ts';
import {
  handlerSuite,
  listInventoryEvent,
  loadInventoryHandlers,
  updateInventoryEvent,
} from '#test/support/handler-suite.ts';
import { invokeStreaming, type StreamedResult } from '#test/support/lambda-events.ts';
import { clearInventory, inventoryRecord, putItems } from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const backOffice = 'https://backoffice.example.com';
const localBackOffice = 'http://localhost:5173';
const exposed = 'ETag, Link, Location, Deprecation, Sunset';

beforeAll(() => {
  process.env[corsOriginsEnv] = `${backOffice},${localBackOffice}`;
});
afterAll(() => {
  delete process.env[corsOriginsEnv];
});
const suite = handlerSuite(loadInventoryHandlers);

beforeEach(async () => {
  await clearInventory(suite.db.client, testTableNames.inventory);
  await putItems(suite.db.client, testTableNames.inventory, [inventoryRecord('7', 3, 'available')]);
});

/** A key the functions never read: the authorizer ran before them. */
const authorization = { Authorization: 'Bearer psk_not-read-by-the-function' };

function listFrom(origin?: string): Promise<StreamedResult> {
  const headers = origin ? { ...authorization, Origin: origin } : authorization;
  return invokeStreaming(
    suite.handler.listInventory,
    listInventoryEvent(headers),
    lambdaContext('listInventory'),
  );
}

function patchFrom(origin: string, petId: string, body: string): Promise<APIGatewayProxyResult> {
  const headers = { origin, 'content-type': 'application/json', ...authorization };
  return suite.handler.updateInventory(
    updateInventoryEvent(petId, body, headers),
    lambdaContext('updateInventory'),
  );
}

describe('CORS headers on the functions responses', () => {
  test.each([backOffice, localBackOffice])(
    'a list from the allowed origin %s carries it back',
    async (origin) => {
      expect(await listFrom(origin)).toStrictEqual({
        statusCode: 200,
        headers: {
          'Content-Type': 'application/json',
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Expose-Headers': exposed,
          Vary: 'Origin',
        },
        body: '[{"petId":7,"quantity":3,"status":"available"}]',
        complete: true,
      });
    },
  );

  test.each(['https://evil.example.com', 'https://backoffice.example.com.evil.example', 'null'])(
    'a list from the origin %s that is not allowed carries no Access-Control-Allow-Origin',
    async (origin) => {
      const response = await listFrom(origin);
      expect(response.statusCode).toBe(200);
      expect(response.headers?.['Access-Control-Allow-Origin']).toBeUndefined();
      expect(response.headers?.Vary).toBe('Origin');
      expect(response.body).toBe('[{"petId":7,"quantity":3,"status":"available"}]');
    },
  );

  test('a request without Origin (not from a browser) carries no Access-Control-Allow-Origin', async () => {
    const response = await listFrom();
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['Access-Control-Allow-Origin']).toBeUndefined();
  });

  test('an update from an allowed origin (lower-case header name, as HTTP/2 clients send it) carries it back', async () => {
    const response = await patchFrom(backOffice, '7', '{"quantity": 12}');
    expect(response).toStrictEqual({
      statusCode: 200,
      headers: {
        'Content-Type': 'application/json',
        'Access-Control-Allow-Origin': backOffice,
        'Access-Control-Expose-Headers': exposed,
        Vary: 'Origin',
        ETag: '"12-available"',
      },
      body: '{"petId":7,"quantity":12,"status":"available"}',
    });
  });

  test.each([
    ['7', '{"quantity": -1}', 400],
    ['404404', '{"quantity": 1}', 404],
  ])(
    'an Error body (PATCH %s %s) from an allowed origin carries the headers too',
    async (petId, body, status) => {
      const response = await patchFrom(localBackOffice, petId, body);
      expect(response.statusCode).toBe(status);
      expect(response.headers).toMatchObject({
        'Content-Type': 'application/json',
        'Access-Control-Allow-Origin': localBackOffice,
        'Access-Control-Expose-Headers': exposed,
        Vary: 'Origin',
      });
      expect(JSON.parse(response.body)).toMatchObject({ status });
    },
  );
});
