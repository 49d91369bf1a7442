/**
 * The HTTP functions' middlewares, each run on a proxy event as middy runs it (its `before`), and the caller's
 * key: the body (lib/http/json-body.ts; docs/contract.md "InventoryUpdate", "Integers in request bodies"), path
 * and query parameters (lib/http/request-parameters.ts; local-aws/behaviour.md E1-E3), the scope check
 * (lib/http/scope-check.ts), the DynamoDB deadline (lib/http/deadline.ts) and the key behind a request
 * (lib/http/caller.ts).
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { operationNamed } from '#lib/api.ts';
import { callerKeyId, callerOwnerKeyId } from '#lib/http/caller.ts';
import { invocationDeadline, withDeadline } from '#lib/http/deadline.ts';
import { type ErrorBody, HttpError } from '#lib/http/errors.ts';
import { jsonBody } from '#lib/http/json-body.ts';
import { declaredQueryParameters, decodePathParameters } from '#lib/http/request-parameters.ts';
import { scopeCheck } from '#lib/http/scope-check.ts';
import { InexactNumber } from '#lib/json-integers.ts';
import { restProxyEvent } from '#test/support/lambda-events.ts';

/** Runs the `before` of each of `middlewares` on `event`, in order, as middy does. */
async function runBefore(middlewares: MiddlewareObj<APIGatewayProxyEvent>[], event: APIGatewayProxyEvent) {
  for (const middleware of middlewares) await middleware.before?.({ event } as never);
  return event;
}

/** The Error body the `before` of `middlewares` throws on `event`. */
async function refusal(middlewares: MiddlewareObj<APIGatewayProxyEvent>[], event: APIGatewayProxyEvent) {
  const error = await runBefore(middlewares, event).then(
    () => new Error('nothing was thrown'),
    (thrown: unknown) => thrown,
  );
  if (error instanceof HttpError) return error.body;
  throw error;
}

const invalid = (message: string): ErrorBody => ({ code: 'invalid_request', message, status: 400 });

/** A PATCH with `body` and `headers` (default a JSON content type). */
const patch = (
  body: string | null,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
) => restProxyEvent({ method: 'PATCH', resource: '/inventory/{petId}', path: '/inventory/7', headers, body });

describe('jsonBody', () => {
  test('parses the body: integers exact, other numbers as sent', async () => {
    const event = await runBefore(jsonBody(), patch('{"quantity": 9007199254740993, "x": 1.5, "a": [2]}'));
    expect(event.body).toStrictEqual({
      quantity: new InexactNumber('9007199254740993'),
      x: new InexactNumber('1.5'),
      a: [2],
    });
  });

  test.each([
    ['application/json; charset=utf-8'],
    ['Application/JSON'],
    ['application/merge-patch+json'],
    ['  application/json \t'],
    ['application/json ;charset=utf-8'],
  ])('takes the content type %j', async (type) => {
    const event = await runBefore(jsonBody(), patch('{"quantity": 5}', { 'content-TYPE': type }));
    expect(event.body).toStrictEqual({ quantity: 5 });
  });

  test('a base64 body is decoded first', async () => {
    const event = patch(Buffer.from('{"quantity": 5}').toString('base64'));
    event.isBase64Encoded = true;
    expect((await runBefore(jsonBody(), event)).body).toStrictEqual({ quantity: 5 });
  });

  test.each([
    [null, 'request body is required: a JSON object such as {"quantity": 5}'],
    ['', 'request body is required: a JSON object such as {"quantity": 5}'],
  ])('a body of %j is 400 naming the example', async (body, message) => {
    expect(await refusal(jsonBody(), patch(body))).toStrictEqual(invalid(message));
    expect(await refusal(jsonBody({ example: '{"status": "approved"}' }), patch(body, {}))).toStrictEqual(
      invalid('request body is required: a JSON object such as {"status": "approved"}'),
    );
  });

  test.each([
    [{}],
    [{ 'Content-Type': 'text/plain' }],
    [{ 'Content-Type': 'application/jsonx' }],
    [{ 'Content-Type': 'application/+json' }],
    [{ 'Content-Type': 'xapplication/json' }],
    [{ 'Content-Typ': 'application/json' }],
    [{ 'X-Content-Type': 'application/json' }],
    [{ 'Content-Type': 'application/json', 'content-type': 'text/plain' }],
  ])('the headers %j are 400: not JSON', async (headers) => {
    expect(await refusal(jsonBody(), patch('{"quantity": 5}', headers))).toStrictEqual(
      invalid('Content-Type must be application/json'),
    );
  });

  test('no headers at all is 400: not JSON', async () => {
    const event = patch('{"quantity": 5}');
    event.headers = null as never;
    expect(await refusal(jsonBody(), event)).toStrictEqual(invalid('Content-Type must be application/json'));
  });

  test.each([
    ['{"quantity": 5', 'request body must be valid JSON'],
    ['{"quantity": 5, "quantity": 6}', 'request body member "quantity" appears twice in one object'],
    ['{"a": 1, "a": ', 'request body must be valid JSON'],
    ['{"__proto__": {"x": 1}}', 'request body member "__proto__" is not allowed'],
    ['{"constructor": {"prototype": {}}}', 'request body member "constructor" is not allowed'],
  ])('%s is 400', async (body, message) => {
    expect(await refusal(jsonBody(), patch(body))).toStrictEqual(invalid(message));
  });

  test('a constructor member without a prototype is data', async () => {
    const event = await runBefore(jsonBody(), patch('{"constructor": {"name": 1}}'));
    expect(JSON.stringify(event.body)).toBe('{"constructor":{"name":1}}');
  });

  test('a member holding an object with a prototype member is data unless it is named constructor', async () => {
    const event = await runBefore(jsonBody(), patch('{"a": {"prototype": 1}}'));
    expect(JSON.stringify(event.body)).toBe('{"a":{"prototype":1}}');
  });

  test('a body nested exactly 64 levels is parsed with the reviver: its integers exact', async () => {
    const deep = `${'['.repeat(63)}${']'.repeat(63)}`;
    const event = await runBefore(jsonBody(), patch(`{"quantity": 5, "deep": ${deep}}`));
    expect(event.body).toStrictEqual({ quantity: 5, deep: JSON.parse(deep) });
  });

  test('a body nested deeper than 64 levels is parsed without the reviver, its top-level numbers inexact', async () => {
    const deep = `${'['.repeat(70)}${']'.repeat(70)}`;
    const event = await runBefore(jsonBody(), patch(`{"quantity": 5, "name": "x", "deep": ${deep}}`));
    expect(event.body).toStrictEqual({ quantity: new InexactNumber('5'), name: 'x', deep: JSON.parse(deep) });
    const array = await runBefore(jsonBody(), patch(deep));
    expect(array.body).toStrictEqual(JSON.parse(deep));
  });
});

describe('path and query parameters', () => {
  const get = (request: Partial<Parameters<typeof restProxyEvent>[0]>) =>
    restProxyEvent({ method: 'GET', resource: '/store/orders', path: '/store/orders', ...request });

  test('each path parameter is percent-decoded once', async () => {
    const event = await runBefore(
      [decodePathParameters()],
      get({ pathParameters: { orderId: '%31%32', x: '%2531' } }),
    );
    expect({ ...event.pathParameters }).toStrictEqual({ orderId: '12', x: '%31' });
    const none = await runBefore([decodePathParameters()], get({}));
    expect(none.pathParameters).toBeNull();
  });

  test('a path parameter that is not percent-encoded UTF-8 is 400 naming it', async () => {
    expect(
      await refusal([decodePathParameters()], get({ pathParameters: { orderId: '%E0%A4%A' } })),
    ).toStrictEqual(invalid('path parameter orderId is not valid percent-encoded UTF-8'));
  });

  test("the operation's query parameters pass; others are 400 naming them and what it takes", async () => {
    const listOrders = [declaredQueryParameters(operationNamed('listOrders'))];
    await runBefore(listOrders, get({ query: { limit: ['5'], cursor: ['x'] } }));
    await runBefore(listOrders, get({}));
    expect(await refusal(listOrders, get({ query: { limit: ['5'], sort: ['x'] } }))).toStrictEqual(
      invalid('query parameters not allowed: "sort" (this operation takes limit, cursor)'),
    );
    const getOrder = [declaredQueryParameters(operationNamed('getOrderById'))];
    expect(await refusal(getOrder, get({ query: { limit: ['5'] } }))).toStrictEqual(
      invalid('query parameters not allowed: "limit" (this operation takes none)'),
    );
    const single = get({});
    single.queryStringParameters = { x: '1' };
    expect(await refusal(getOrder, single)).toStrictEqual(
      invalid('query parameters not allowed: "x" (this operation takes none)'),
    );
  });
});

describe('scopeCheck', () => {
  const event = (scope: unknown) => {
    const proxy = restProxyEvent({ method: 'GET', resource: '/store/orders', path: '/store/orders' });
    (proxy.requestContext.authorizer as Record<string, unknown>).scope = scope;
    return proxy;
  };
  const check = [scopeCheck(operationNamed('listOrders'))] as MiddlewareObj<APIGatewayProxyEvent>[];

  test('a key holding the scope passes; one without it, or a context without scopes, is 403', async () => {
    await runBefore(check, event('inventory:read orders:read'));
    const forbidden = {
      code: 'forbidden',
      message: 'this API key lacks the scope orders:read that listOrders requires',
      status: 403,
    };
    expect(await refusal(check, event('inventory:read orders:write'))).toStrictEqual(forbidden);
    expect(await refusal(check, event(undefined))).toStrictEqual(forbidden);
    const none = event('');
    none.requestContext.authorizer = null;
    expect(await refusal(check, none)).toStrictEqual(forbidden);
  });
});

describe("the caller's key", () => {
  const context = (authorizer: Record<string, unknown> | null) =>
    ({ requestContext: { authorizer } }) as unknown as APIGatewayProxyEvent;

  test('callerKeyId: the context keyId, none when absent, empty or not a string', () => {
    expect(callerKeyId(context({ keyId: 'ba7816bf8f01' }))).toBe('ba7816bf8f01');
    expect(callerKeyId(context({ keyId: '' }))).toBeUndefined();
    expect(callerKeyId(context({ keyId: 7 }))).toBeUndefined();
    expect(callerKeyId(context(null))).toBeUndefined();
  });

  test('callerOwnerKeyId: the first key id of the chain, else the keyId; an Error when neither', () => {
    expect(callerOwnerKeyId(context({ keyId: 'b', firstKeyId: 'a' }))).toBe('a');
    expect(callerOwnerKeyId(context({ keyId: 'b', firstKeyId: '' }))).toBe('b');
    expect(callerOwnerKeyId(context({ keyId: 'b', firstKeyId: 3 }))).toBe('b');
    expect(callerOwnerKeyId(context({ keyId: 'b' }))).toBe('b');
    expect(() => callerOwnerKeyId(context({}))).toThrow(new Error('the authorizer context names no key'));
    expect(() => callerOwnerKeyId(context(null))).toThrow(new Error('the authorizer context names no key'));
  });
});

describe('the DynamoDB deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A client whose one call answers after `ms` (never when undefined), wrapped by withDeadline. */
  function clientAnsweringAfter(ms: number | undefined) {
    let wrapped: ((args: unknown) => Promise<unknown>) | undefined;
    let calls = 0;
    const next = () => {
      calls += 1;
      return new Promise((resolve) => {
        if (ms !== undefined) setTimeout(() => resolve('answer'), ms);
      });
    };
    withDeadline({
      middlewareStack: {
        add: (middleware: (next: () => Promise<unknown>) => (args: unknown) => Promise<unknown>) => {
          wrapped = middleware(next);
        },
      },
    } as never);
    return { call: () => (wrapped as (args: unknown) => Promise<unknown>)({}), calls: () => calls };
  }

  const outOfTime = {
    code: 'service_unavailable',
    message: 'the inventory database did not answer in time; retry later',
    status: 503,
  };
  /** Runs `run` inside an invocation with `remainingMs` left, as the middleware sets and clears the deadline. */
  async function inInvocation<T>(remainingMs: number, run: () => Promise<T>): Promise<T> {
    const deadline = invocationDeadline();
    await deadline.before?.({ context: { getRemainingTimeInMillis: () => remainingMs } } as never);
    try {
      return await run();
    } finally {
      await deadline.after?.({} as never);
    }
  }
  const bodyOf = (error: unknown) => (error instanceof HttpError ? error.body : error);

  test('outside an invocation a call waits for its answer', async () => {
    const client = clientAnsweringAfter(30);
    await expect(client.call()).resolves.toBe('answer');
  });

  test('within one, a call answered in time is answered', async () => {
    const client = clientAnsweringAfter(10);
    await expect(inInvocation(3000, client.call)).resolves.toBe('answer');
  });

  test('a call still running at the deadline (the time left less half of it) is given up with 503', async () => {
    vi.useFakeTimers();
    const client = clientAnsweringAfter(undefined);
    const outcome = inInvocation(1000, client.call).catch(bodyOf);
    await vi.advanceTimersByTimeAsync(499);
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(outcome).resolves.toStrictEqual(outOfTime);
  });

  test('a call made past the deadline is refused without being sent; after the invocation none applies', async () => {
    vi.useFakeTimers();
    const client = clientAnsweringAfter(0);
    const late = inInvocation(1000, async () => {
      vi.setSystemTime(Date.now() + 500);
      return client.call();
    }).catch(bodyOf);
    await expect(late).resolves.toStrictEqual(outOfTime);
    expect(client.calls()).toBe(0);
    vi.setSystemTime(Date.now() + 10_000);
    const after = client.call();
    await vi.advanceTimersByTimeAsync(0);
    await expect(after).resolves.toBe('answer');
  });

  test('an error clears the deadline too', async () => {
    vi.useFakeTimers();
    const deadline = invocationDeadline();
    await deadline.before?.({ context: { getRemainingTimeInMillis: () => 1000 } } as never);
    await deadline.onError?.({} as never);
    vi.setSystemTime(Date.now() + 10_000);
    const client = clientAnsweringAfter(0);
    const call = client.call();
    await vi.advanceTimersByTimeAsync(0);
    await expect(call).resolves.toBe('answer');
  });
});
