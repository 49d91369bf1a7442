/**
 * DynamoDB throttling (docs/contract.md "Errors": 503 `service_unavailable` when the database is throttling after
 * the SDK's retries; not 500, and for the authorizer not a refusal).
 *
 * dynalite cannot be made to throttle, so the handlers run here against a protocol-level stand-in: a tiny
 * HTTP server that answers every request exactly as DynamoDB answers a throttled one on the wire (HTTP 400,
 * `x-amzn-ErrorType`, and the JSON 1.0 error body of `ProvisionedThroughputExceededException`). It fakes no
 * DynamoDB behaviour (it stores and reads nothing); it produces the one fault the real APIs used elsewhere
 * cannot. The handlers are invoked in-process with API Gateway events, as Lambda invokes them.
 *
 * Bound: the SDK's standard strategy retries throttling with a 1,000 ms base delay and full jitter, so the
 * whole request takes at most 1000 x (2^(maxAttempts-1) - 1) ms of backoff plus maxAttempts round trips.
 */
import { createServer } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { scopes } from '#lib/api.ts';
import { maxAttempts } from '#lib/clients/dynamodb.ts';
import { localAwsDefaults } from '#local/settings.ts';
import { listenOnFreePort } from '#test/support/free-port.ts';
import {
  type AuthorizerHandler,
  invokeStreaming,
  type ProxyHandler,
  type StreamingHandler,
} from '#test/support/lambda-events.ts';
import { installStreamingRuntime, lambdaContext } from '#test/support/lambda-invoke.ts';

const throttlingBody = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  message: 'Rate exceeded',
});
const boundMs = 1000 * (2 ** (maxAttempts - 1) - 1) + 1000;
const unavailable = JSON.stringify({
  code: 'service_unavailable',
  message: 'the inventory database is unavailable; retry later',
  status: 503,
});

/** Closes the throttling server. */
let closeServer: () => Promise<void>;
/** The DynamoDB operations (`X-Amz-Target`) received since the last reset. */
let received: string[] = [];
let updateInventory: ProxyHandler;
let listInventory: StreamingHandler;
let authorizer: AuthorizerHandler;

beforeAll(async () => {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(String(request.headers['x-amz-target']));
      response
        .writeHead(400, {
          'Content-Type': 'application/x-amz-json-1.0',
          'x-amzn-RequestId': `throttled-${received.length}`,
          'x-amzn-ErrorType': 'ProvisionedThroughputExceededException',
        })
        .end(throttlingBody);
    });
  });
  let endpoint: string;
  ({ endpoint, close: closeServer } = await listenOnFreePort(server));
  localAwsDefaults();
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.INVENTORY_TABLE_NAME = 'inventory-under-test';
  process.env.API_KEYS_TABLE_NAME = 'api-keys-under-test';
  process.env.IDEMPOTENCY_TABLE_NAME = 'idempotency-under-test';
  // The handler modules read their environment once, at import, as in a Lambda container.
  updateInventory = (await import('#functions/update-inventory/handler.ts')).handler as ProxyHandler;
  installStreamingRuntime();
  // In streaming mode the runtime calls (event, stream, context); middy types the plain Lambda signature.
  listInventory = (await import('#functions/list-inventory/handler.ts'))
    .handler as unknown as StreamingHandler;
  authorizer = (await import('#functions/authorizer/handler.ts')).handler as AuthorizerHandler;
});
afterAll(async () => {
  await closeServer?.();
});
beforeEach(() => {
  received = [];
});

/** A REST API proxy event (payload 1.0) as API Gateway sends it to the function. */
function proxyEvent(method: string, resource: string, path: string, init: Partial<APIGatewayProxyEvent>) {
  return {
    resource,
    path,
    httpMethod: method,
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      resourceId: 'test',
      resourcePath: resource,
      httpMethod: method,
      path: `/v1${path}`,
      stage: 'v1',
      protocol: 'HTTP/1.1',
      requestId: 'request-under-test',
      requestTimeEpoch: Date.now(),
      authorizer: { principalId: 'test', keyName: 'test', keyId: '0123456789ab', scope: scopes.join(' ') },
      identity: { sourceIp: '127.0.0.1', userAgent: 'test' },
    },
    ...init,
  } as APIGatewayProxyEvent;
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await run();
  return { result, ms: performance.now() - start };
}

describe('DynamoDB throttling after the SDK retries', () => {
  test.each<{
    operation: string;
    request: string;
    invoke: () => Promise<{ statusCode: number; headers?: Record<string, unknown>; body: string }>;
  }>([
    {
      operation: 'updateInventory',
      request: 'TransactWriteItems',
      invoke: () =>
        updateInventory(
          proxyEvent('PATCH', '/inventory/{petId}', '/inventory/7', {
            headers: { 'Content-Type': 'application/json' },
            multiValueHeaders: { 'Content-Type': ['application/json'] },
            pathParameters: { petId: '7' },
            body: '{"quantity":5}',
          }),
          lambdaContext('updateInventory'),
        ),
    },
    {
      operation: 'listInventory',
      // The first shard's Query is sent alone: a database that refuses it costs one request's attempts.
      request: 'Query',
      invoke: () =>
        invokeStreaming(
          listInventory,
          proxyEvent('GET', '/inventory', '/inventory', {}),
          lambdaContext('listInventory'),
        ),
    },
  ])(
    '$operation answers 503 service_unavailable, not 500, after maxAttempts $request attempts',
    async ({ request, invoke }) => {
      const { result, ms } = await timed(invoke);
      expect(result.statusCode).toBe(503);
      expect(result.headers?.['Content-Type']).toBe('application/json');
      expect(result.body).toBe(unavailable);
      expect(received).toEqual(Array(maxAttempts).fill(`DynamoDB_20120810.${request}`));
      expect(ms).toBeLessThan(boundMs);
    },
  );

  test('the authorizer fails (API Gateway answers 503 AUTHORIZER_FAILURE) rather than refusing or allowing when the key lookup is throttled', async () => {
    const event: APIGatewayTokenAuthorizerEvent = {
      type: 'TOKEN',
      authorizationToken: 'Bearer psk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:test/v1/GET/inventory',
    };
    const outcome = await authorizer(event, lambdaContext('authorizer')).then(
      () => 'allowed',
      (error: Error) => error.message,
    );
    expect(outcome).not.toBe('allowed');
    expect(outcome).not.toBe('Unauthorized');
    expect(received).toEqual(Array(maxAttempts).fill('DynamoDB_20120810.GetItem'));
  });
});
