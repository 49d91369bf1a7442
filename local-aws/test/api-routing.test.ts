/**
 * Routing as API Gateway REST routes (behaviour.md "Routing", R1-R5), on the fixture API
 * (test/support/api-fixture.ts): a method reaches its function with the resource it matched, and a request
 * no method matches is API Gateway's MISSING_AUTHENTICATION_TOKEN, 403 by default.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeTemporaryDirs } from '../testing/temporary-dirs.ts';
import { type ApiFixture, startApiFixture } from './support/api-fixture.ts';
import { send } from './support/raw-exchange.ts';

let api: ApiFixture;
beforeAll(async () => {
  api = await startApiFixture({
    routes: [
      { method: 'GET', path: '/items' },
      { method: 'GET', path: '/items/{itemId}', authorized: true },
      { method: 'PATCH', path: '/items/{itemId}', authorized: true },
      { method: 'POST', path: '/items/batch', authorized: true },
    ],
  });
});
afterAll(async () => {
  await api?.close();
  await removeTemporaryDirs();
});

const allow: [string, string] = ['Authorization', 'Bearer allow'];
const missingToken = '{"message":"Missing Authentication Token"}';

/** The event the echoing function received for `method target` (200 asserted). */
async function seen(method: string, target: string): Promise<Record<string, unknown>> {
  const answer = await send(api.port, method, target, [allow]);
  expect(answer.status, answer.body).toBe(200);
  return JSON.parse(answer.body);
}

/** Asserts that `method target` is no route: 403, MissingAuthenticationTokenException, the default body. */
async function expectNoRoute(method: string, target: string, headers: [string, string][] = [allow]) {
  const answer = await send(api.port, method, target, headers);
  expect([answer.status, answer.headers['x-amzn-errortype']]).toEqual([
    403,
    'MissingAuthenticationTokenException',
  ]);
  if (method !== 'HEAD') expect(answer.body).toBe(missingToken);
}

describe('routing', () => {
  test('R1: one trailing slash routes as without it; the event keeps the slash in its path', async () => {
    const event = await seen('GET', '/v1/items/');
    expect([event.resource, event.path]).toEqual(['/items', '/items/']);
    const item = await seen('GET', '/v1/items/a1/');
    expect([item.resource, item.path, item.pathParameters]).toEqual([
      '/items/{itemId}',
      '/items/a1/',
      { itemId: 'a1' },
    ]);
  });

  test('R2: duplicate slashes are no route', async () => {
    await expectNoRoute('GET', '/v1//items');
    await expectNoRoute('GET', '/v1/items//a1');
  });

  test.each(['HEAD', 'OPTIONS', 'DELETE', 'PUT'])(
    'R3: %s on a resource without that method is no route',
    async (method) => {
      await expectNoRoute(method, '/v1/items');
    },
  );

  test('R4: an unknown route with a bearer token is no route, and the authorizer is not asked', async () => {
    await expectNoRoute('GET', '/v1/nowhere', [['Authorization', 'Bearer never-asked']]);
    await expectNoRoute('GET', '/nowhere', [['Authorization', 'Bearer never-asked']]);
    expect(await api.authorizerCalls()).not.toContain('never-asked');
  });
});

describe('a static resource beside a {param} sibling', () => {
  test('R5: a method the static resource has goes to it', async () => {
    const event = await seen('POST', '/v1/items/batch');
    expect([event.resource, event.pathParameters]).toEqual(['/items/batch', null]);
  });

  test.each(['GET', 'PATCH'])(
    'R5: %s, which only the sibling has, goes to the sibling with the static segment as its value',
    async (method) => {
      const event = await seen(method, '/v1/items/batch');
      expect([event.resource, event.httpMethod, event.pathParameters]).toEqual([
        '/items/{itemId}',
        method,
        { itemId: 'batch' },
      ]);
    },
  );

  test('R5: a method neither has is no route', async () => {
    await expectNoRoute('DELETE', '/v1/items/batch');
  });
});
