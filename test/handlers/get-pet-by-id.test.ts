/**
 * functions/get-pet-by-id invoked in this process with REST proxy events (payload 1.0) against a real DynamoDB
 * API (in-memory dynalite): the sunset rule of docs/contract.md "Pets" (docs/service-spec.md §9.4). The clock
 * is moved with vitest's settable clock, which reaches only this process: over HTTP the function runs in a
 * worker thread, as a deployed Lambda runs in its own environment, so the rule is proven here.
 */

import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from 'local-aws';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { environments } from '#infra/settings.ts';
import { handlerSuite } from '#test/support/handler-suite.ts';
import { type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';

beforeAll(() => {
  const { deprecatedAt, sunsetAt } = environments.staging.deprecation;
  process.env.DEPRECATED_AT = deprecatedAt;
  process.env.SUNSET_AT = sunsetAt;
});
const suite = handlerSuite<ProxyHandler>(
  () => import('#functions/get-pet-by-id/handler.ts'),
  [inventoryRecord('5', 2, 'sold')],
);
afterEach(() => {
  vi.useRealTimers();
});

const sunsetAt = new Date(environments.staging.deprecation.sunsetAt);

/** GET /pets/{petId} with the clock at `now`. */
function getPetAt(now: Date, petId: string): Promise<APIGatewayProxyResult> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now);
  const event = restProxyEvent({
    method: 'GET',
    resource: '/pets/{petId}',
    path: `/pets/${petId}`,
    pathParameters: { petId },
  });
  return suite.handler(event, lambdaContext('get-pet-by-id'));
}

/** Both deprecation headers, exactly as every response of the function carries them. */
function expectDeprecationHeaders(result: APIGatewayProxyResult): void {
  expect(result.headers?.Deprecation).toBe('@1795392000');
  expect(result.headers?.Sunset).toBe('Wed, 30 Jun 2027 23:59:59 GMT');
}

describe('getPetById sunset (clock moved in process)', () => {
  test('still answers one second before the sunset, with both headers', async () => {
    const result = await getPetAt(new Date(sunsetAt.getTime() - 1000), '5');
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe('{"id":5,"photoUrls":[],"tags":[],"status":"sold"}');
    expectDeprecationHeaders(result);
  });

  test.each([
    ['5', 'at the sunset', 0],
    ['8', 'at the sunset', 0],
    ['abc', 'at the sunset', 0],
    ['5', 'a day after the sunset', 86_400_000],
  ])('answers 410 gone for %s %s, with both headers', async (petId, _when, after) => {
    const result = await getPetAt(new Date(sunsetAt.getTime() + after), petId);
    expect(result.statusCode).toBe(410);
    expect(result.headers?.['Content-Type']).toBe('application/json');
    expect(JSON.parse(result.body)).toEqual({
      code: 'gone',
      message: 'getPetById was retired on Wed, 30 Jun 2027 23:59:59 GMT',
      status: 410,
    });
    expectDeprecationHeaders(result);
  });
});
