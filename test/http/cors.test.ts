/**
 * CORS through the local API serving a stack synthesized with two allowed origins (docs/operating.md "CORS";
 * local-aws/behaviour.md "Responses API Gateway writes", G3 and G4): the preflight's MOCK template picks the origin,
 * the functions answer allowed origins only, and gateway responses echo the request's `Origin`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { Template } from 'local-aws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InventoryStack } from '#infra/inventory-stack.ts';
import { environments } from '#infra/settings.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

const backOffice = 'https://backoffice.example.com';
const localBackOffice = 'http://localhost:5173';
const elsewhere = 'https://elsewhere.example.com';

let api: TestApi;
let outdir: string;
beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'cors-stack-'));
  const app = new App({ outdir, analyticsReporting: false, context: { 'aws:cdk:bundling-stacks': [] } });
  const settings = { ...environments.staging, corsAllowedOrigins: [backOffice, localBackOffice] };
  const stack = new InventoryStack(app, 'Cors-staging', { settings });
  const template = app.synth().getStackByName(stack.stackName).template as Template;
  api = await startTestApi({ stack: { assemblyDir: outdir, template, sources: true } });
  await api.inventory.putMany([{ petId: '7', quantity: 3, status: 'available' }]);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await rm(outdir, { recursive: true, force: true });
});

function preflight(origin: string) {
  return api.request('OPTIONS', '/inventory/7', {
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'PATCH',
      'Access-Control-Request-Headers': 'authorization,content-type,if-match',
    },
  });
}

describe('preflight (OPTIONS, MOCK integration)', () => {
  test.each([backOffice, localBackOffice])(
    'answers %s with its own origin and the resource methods',
    async (origin) => {
      const response = await preflight(origin);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-methods')).toBe('GET,PATCH');
      expect(response.headers.get('access-control-allow-headers')).toBe(
        'Authorization,Content-Type,If-Match,Idempotency-Key',
      );
      expect(response.headers.get('access-control-max-age')).toBe('600');
      expect(response.headers.get('vary')).toBe('Origin');
    },
  );

  test('answers another origin with the first allowed one, which a browser refuses', async () => {
    const response = await preflight(elsewhere);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(backOffice);
  });
});

describe('responses of the functions', () => {
  test('an entry for an allowed origin carries that origin and the exposed headers', async () => {
    const response = await api.request('GET', '/inventory/7', {
      headers: { Authorization: api.authorization, Origin: localBackOffice },
    });
    expect(response.status).toBe(200);
    expect(response.text).toBe('{"petId":7,"quantity":3,"status":"available"}');
    expect(response.headers.get('access-control-allow-origin')).toBe(localBackOffice);
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'ETag, Link, Location, Deprecation, Sunset',
    );
    expect(response.headers.get('vary')).toBe('Origin');
  });

  test('another origin gets no Access-Control-Allow-Origin', async () => {
    const response = await api.request('GET', '/inventory/7', {
      headers: { Authorization: api.authorization, Origin: elsewhere },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('gateway responses', () => {
  test('a 401 echoes the request Origin, so the browser can read the Error body', async () => {
    const response = await api.request('GET', '/inventory/7', { headers: { Origin: backOffice } });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toEqual({
      code: 'unauthorized',
      message: 'a valid API key is required: send Authorization: Bearer <API_KEY>',
      status: 401,
    });
    expect(response.headers.get('access-control-allow-origin')).toBe(backOffice);
    expect(response.headers.get('vary')).toBe('Origin');
  });

  test('without an Origin the mapped header is left out', async () => {
    const response = await api.request('GET', '/inventory/7', {});
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
