/**
 * The functions' CORS headers (lib/http/cors.ts) when the environment allows origins: the real handler modules,
 * loaded with `CORS_ALLOWED_ORIGINS` set as the stack sets it, invoked with REST proxy events against dynalite.
 * Successes and Error bodies alike carry `Access-Control-Allow-Origin` for an allowed `Origin` and nothing for
 * any other; bodies and statuses are unchanged.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { installStreamingRuntime } from '#infra/local/response-streaming.ts';
import { corsOriginsEnv } from '#lib/http/cors.ts';
import {
  invokeStreaming,
  lambdaTestContext,
  type ProxyHandler,
  restProxyEvent,
  type StreamedResult,
  type StreamingHandler,
} from '#test/support/lambda-events.ts';
import {
  clearInventory,
  importHandlerOnTestDynamoDb,
  inventoryRecord,
  putItems,
  type TestDynamoDb,
  testTableNames,
} from '#test/support/test-dynamodb.ts';

const backOffice = 'https://backoffice.example.com';
const localBackOffice = 'http://localhost:5173';
const exposed = 'ETag, Link, Location, Deprecation, Sunset';

let db: TestDynamoDb;
let list: StreamingHandler;
let update: ProxyHandler;

beforeAll(async () => {
  process.env[corsOriginsEnv] = `${backOffice},${localBackOffice}`;
  installStreamingRuntime();
  // In streaming mode the runtime calls (event, stream, context); middy types the plain Lambda signature.
  const imported = await importHandlerOnTestDynamoDb(() => import('#functions/list-inventory/handler.ts'));
  db = imported.db;
  list = imported.handler as unknown as StreamingHandler;
  update = (await import('#functions/update-inventory/handler.ts')).handler as ProxyHandler;
});
afterAll(async () => {
  delete process.env[corsOriginsEnv];
  await db?.close();
});

beforeEach(async () => {
  await clearInventory(db.client, testTableNames.inventory);
  await putItems(db.client, testTableNames.inventory, [inventoryRecord('7', 3, 'available')]);
});

function listFrom(origin?: string): Promise<StreamedResult> {
  const headers: Record<string, string> = { Authorization: 'Bearer psk_not-read-by-the-function' };
  if (origin) headers.Origin = origin;
  return invokeStreaming(
    list,
    restProxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory', headers }),
    lambdaTestContext('listInventory'),
  );
}

function patchFrom(origin: string, petId: string, body: string): Promise<APIGatewayProxyResult> {
  const event = restProxyEvent({
    method: 'PATCH',
    resource: '/inventory/{petId}',
    path: `/inventory/${petId}`,
    pathParameters: { petId },
    headers: {
      origin,
      'content-type': 'application/json',
      Authorization: 'Bearer psk_not-read-by-the-function',
    },
    body,
  });
  return update(event, lambdaTestContext('updateInventory'));
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
