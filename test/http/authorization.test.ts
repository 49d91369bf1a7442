/**
 * The authorization matrix over HTTP (docs/service-spec.md §5; docs/contract.md "Authentication and
 * authorization"): every route of the operation table x every credential case, every route x every scope (a key
 * holding only that scope), a key stored before scopes existed, and the order of checks (unknown route, then
 * 401, then 403, then 400, then 404).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Scope, scopes } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { expectDeclared } from '#test/support/openapi-validator.ts';
import { orderRecord } from '#test/support/raw-tables.ts';
import { probeRequests } from '#test/support/routes.ts';
import { startTestApi, type TestApi, unthrottled } from '#test/support/test-api.ts';

let api: TestApi;
let revokedKey: string;
let expiredKey: string;
/** A key holding only that scope. */
const scopeKeys = new Map<Scope, string>();
/** A key stored as before scopes existed: no `scopes` attribute. */
let legacyKey: string;
const petId = '42';
/** The order the getOrderById and updateOrder probes read (routes.ts probes order `1`, `placed`). */
const probeOrder = orderRecord('1', petId, 1);

beforeAll(async () => {
  api = await startTestApi();
  // Stock for every placeOrder probe, and an order for the getOrderById and updateOrder probes.
  await api.inventory.putMany([{ petId, quantity: 1000, status: 'available' }]);
  await api.putRawItems([probeOrder], 'orders');
  revokedKey = generateApiKey();
  await api.keys.put({
    keyDigest: apiKeyDigest(revokedKey),
    name: 'revoked',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  await api.keys.revoke(apiKeyDigest(revokedKey), new Date());
  expiredKey = generateApiKey();
  await api.keys.put({
    keyDigest: apiKeyDigest(expiredKey),
    name: 'expired',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
  });
  for (const scope of scopes) {
    const key = generateApiKey();
    await api.keys.put({
      keyDigest: apiKeyDigest(key),
      name: `only-${scope}`,
      createdAt: '2026-01-01T00:00:00.000Z',
      scopes: [scope],
      ...unthrottled,
    });
    scopeKeys.set(scope, key);
  }
  legacyKey = generateApiKey();
  await api.keys.put({
    keyDigest: apiKeyDigest(legacyKey),
    name: 'legacy',
    createdAt: '2025-01-01T00:00:00.000Z',
    ...unthrottled,
  });
});
afterAll(() => api.close());

/** The 403 body for a key without `scope` calling `operationName`. */
function forbiddenBody(scope: Scope, operationName: string) {
  return {
    code: 'forbidden',
    message: `this API key lacks the scope ${scope} that ${operationName} requires`,
    status: 403,
  };
}

const unauthorized = {
  code: 'unauthorized',
  message: 'a valid API key is required: send Authorization: Bearer <API_KEY>',
  status: 401,
};

const refusals: [string, () => Record<string, string>][] = [
  ['a missing Authorization header', () => ({})],
  ['another scheme (Basic)', () => ({ Authorization: `Basic ${api.apiKey}` })],
  ['an empty Bearer token', () => ({ Authorization: 'Bearer ' })],
  ['the key without a scheme', () => ({ Authorization: api.apiKey })],
  ['an unknown key', () => ({ Authorization: `Bearer ${generateApiKey()}` })],
  ['a revoked key', () => ({ Authorization: `Bearer ${revokedKey}` })],
  ['an expired key', () => ({ Authorization: `Bearer ${expiredKey}` })],
];

describe.each(probeRequests(petId))('$method $path', (probe) => {
  test.each(refusals)('answers 401 unauthorized to %s and changes nothing', async (_case, credentials) => {
    const before = await api.tableItems();
    const response = await api.request(probe.method, probe.path, {
      headers: { ...probe.headers, ...credentials() },
      ...(probe.body ? { body: probe.body } : {}),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(response.text)).toEqual(unauthorized);
    expect(await api.tableItems()).toEqual(before);
  });

  test.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])(
    'accepts the scheme written %s (case-insensitive)',
    async (scheme) => {
      const response = await api.request(probe.method, probe.path, {
        headers: { ...probe.headers, Authorization: `${scheme} ${api.apiKey}` },
        ...(probe.body ? { body: probe.body } : {}),
      });
      expect(response.status).toBe(probe.success);
    },
  );
});

/** 403 of createWebhookEndpoint for a key that reads no event type (lib/webhooks/event-access.ts). */
const noReadableEventType = {
  code: 'forbidden',
  message:
    'this API key can read no event type: inventory.changed needs inventory:read, inventory.low_stock needs inventory:read, order.changed needs orders:read',
  status: 403,
};

describe.each(probeRequests(petId))('$method $path by scope', (probe) => {
  test.each(scopes.map((scope) => [scope]))(
    'a key holding only %s: success when it is the operation scope, else 403 forbidden and nothing changes',
    async (scope) => {
      const before = await api.tableItems();
      const response = await api.request(probe.method, probe.path, {
        headers: { ...probe.headers, Authorization: `Bearer ${scopeKeys.get(scope)}` },
        ...(probe.body ? { body: probe.body } : {}),
      });
      expectDeclared(probe.method, probe.path, response);
      if (scope === probe.operation.scope && probe.operation.name === 'createWebhookEndpoint') {
        // Least privilege: a key holding only webhooks:manage reads no event type, so it may deliver none
        // (docs/contract.md "History and events"); nothing changes.
        expect([response.status, JSON.parse(response.text)]).toEqual([403, noReadableEventType]);
        expect(await api.tableItems()).toEqual(before);
        return;
      }
      if (scope === probe.operation.scope) {
        expect(response.status).toBe(probe.success);
        return;
      }
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(response.text)).toEqual(forbiddenBody(probe.operation.scope, probe.operation.name));
      expect(await api.tableItems()).toEqual(before);
    },
  );

  test('a key stored before scopes existed holds every scope', async () => {
    const response = await api.request(probe.method, probe.path, {
      headers: { ...probe.headers, Authorization: `Bearer ${legacyKey}` },
      ...(probe.body ? { body: probe.body } : {}),
    });
    expect(response.status).toBe(probe.success);
  });
});

describe('a read-only key (docs/contract.md "Authentication and authorization")', () => {
  test('lists, but gets 403 forbidden on PATCH with the table unchanged', async () => {
    const readOnly = `Bearer ${scopeKeys.get('inventory:read')}`;
    const list = await api.request('GET', '/inventory', { headers: { Authorization: readOnly } });
    expect(list.status).toBe(200);
    const before = await api.tableItems();

    const response = await api.request('PATCH', `/inventory/${petId}`, {
      headers: { Authorization: readOnly, 'Content-Type': 'application/json' },
      body: '{"quantity": 0}',
    });

    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toEqual(forbiddenBody('inventory:write', 'updateInventory'));
    expect(await api.tableItems()).toEqual(before);
  });
});

describe('order of checks (docs/contract.md "Authentication and authorization")', () => {
  const noRoute = {
    code: 'not_found',
    message: 'no such route or method: the operations are listed in the API description (openapi.yaml)',
    status: 404,
  };

  test.each([
    ['DELETE', '/pets/1'],
    ['DELETE', `/inventory/${petId}`],
    ['PUT', `/inventory/${petId}`],
    ['PUT', '/inventory'],
    ['POST', '/inventory'],
    ['GET', `/inventory/${petId}/extra`],
    ['GET', '/'],
  ])(
    'answers an unknown route %s %s with 404 not_found before checking credentials',
    async (method, path) => {
      const response = await api.request(method, path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(response.text)).toEqual(noRoute);
    },
  );

  test('answers a path outside the /v1 stage with 404 not_found', async () => {
    const response = await fetch(api.baseUrl.replace(/\/v1$/, '/inventory'), {
      headers: { Authorization: api.authorization },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(noRoute);
  });

  test('checks credentials before validating the request (401, not 400)', async () => {
    const response = await api.request('PATCH', '/inventory/abc', { body: 'not json' });
    expect(response.status).toBe(401);
  });

  test('checks the scope before validating the request (403, not 400)', async () => {
    const response = await api.request('PATCH', '/inventory/abc', {
      headers: { Authorization: `Bearer ${scopeKeys.get('inventory:read')}`, 'Content-Type': 'text/plain' },
      body: 'not json',
    });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toEqual(forbiddenBody('inventory:write', 'updateInventory'));
  });

  test('checks credentials before the scope (401, not 403)', async () => {
    const response = await api.request('PATCH', `/inventory/${petId}`, {
      headers: { Authorization: `Bearer ${revokedKey}`, 'Content-Type': 'application/json' },
      body: '{"quantity": 1}',
    });
    expect(response.status).toBe(401);
  });

  test('validates the request before looking the pet up (400, not 404)', async () => {
    const response = await api.request('PATCH', '/inventory/999', {
      headers: { Authorization: api.authorization, 'Content-Type': 'application/json' },
      body: '{"quantity": -1}',
    });
    expect(response.status).toBe(400);
  });
});
