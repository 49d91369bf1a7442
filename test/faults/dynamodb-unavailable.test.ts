/**
 * The database goes away and comes back (docs/contract.md "Errors": 503 `service_unavailable` when the database
 * is unreachable after the SDK's retries; the message reveals nothing internal).
 *
 * The service runs against a restartable test DynamoDB this file starts itself (a fixed port and a data
 * folder), so it can be stopped and started again under the running service.
 *
 * Time bounds, derived from lib/clients/dynamodb.ts and the SDK's standard retry strategy (base delay 50 ms,
 * full jitter, so at most 50 x (2^(maxAttempts-1) - 1) ms of backoff in all):
 * - refused connections (nothing listens): every attempt fails at once, so the answer comes within
 *   maxAttempts x connectionTimeoutMs + backoff; asserted with 1 s of slack on top;
 * - a host that accepts connections and never answers: every attempt waits requestTimeoutMs, so the answer
 *   comes within maxAttempts x (connectionTimeoutMs + requestTimeoutMs) + backoff (+ 1 s slack).
 * These are correctness bounds (a request must not hang), not benchmarks.
 */
import { createServer, type Socket } from 'node:net';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { connectionTimeoutMs, maxAttempts, requestTimeoutMs } from '#lib/clients/dynamodb.ts';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import { localTableNames } from '#local/settings.ts';
import { expectContractError, inventoryItemJson, observe } from '#test/support/contract-oracle.ts';
import { sha256Hex } from '#test/support/raw-tables.ts';
import { probeRequests } from '#test/support/routes.ts';
import { startTestApi, storedEntry, type TestApi, type TestResponse } from '#test/support/test-api.ts';

const backoffMs = 50 * (2 ** (maxAttempts - 1) - 1);
const refusedBoundMs = maxAttempts * connectionTimeoutMs + backoffMs + 1000;
const unresponsiveBoundMs = maxAttempts * (connectionTimeoutMs + requestTimeoutMs) + backoffMs + 1000;

/** The function's answer when its DynamoDB request fails (lib/http/error-middleware.ts). */
const functionUnavailable = 'the inventory database is unavailable; retry later';
/** The gateway's answer when the authorizer fails (infra/gateway-responses.ts AUTHORIZER_FAILURE). */
const authorizerUnavailable = 'the service is temporarily unavailable; retry later';

const items: InventoryItem[] = [
  { petId: '-3', quantity: 30, status: 'pending' },
  { petId: '9223372036854775807', quantity: 7, status: 'available' },
];

let port: number;
let db: TestStore;
let api: TestApi;
/** A valid key used before the outage: the authorizer's Allow for it is cached. */
let cachedAuthorization: string;
/** A valid key never used before the outage: the authorizer must ask DynamoDB. */
let freshAuthorization: string;

beforeAll(async () => {
  db = await startTestStore({ restartable: true });
  port = db.port;
  api = await startTestApi({ dynamoDb: db });
  await api.inventory.putMany(items);
  cachedAuthorization = api.authorization;
  const freshKey = generateApiKey();
  await api.keys.put({
    keyDigest: apiKeyDigest(freshKey),
    name: 'fresh',
    createdAt: new Date().toISOString(),
  });
  freshAuthorization = `Bearer ${freshKey}`;
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const listJson = `[${items.map(inventoryItemJson).join(',')}]`;

function getList(authorization: string) {
  return api.request('GET', '/inventory', { headers: { Authorization: authorization } });
}

function patch(authorization: string, petId: string, body: string) {
  return api.patch(petId, body, { Authorization: authorization });
}

/** Runs `send`, returning its response and how long it took. */
async function timed(send: () => Promise<TestResponse>): Promise<{ response: TestResponse; ms: number }> {
  const start = performance.now();
  const response = await send();
  return { response, ms: performance.now() - start };
}

/** Asserts a 503 `service_unavailable` with exactly `message` and nothing internal in the body. */
function expectUnavailable(response: TestResponse, message: string): void {
  expectContractError(observe(response), 503, message);
  const names = localTableNames();
  for (const internal of [
    names.inventory,
    names.apiKeys,
    'ECONNREFUSED',
    'Error:',
    '    at ',
    String(port),
  ]) {
    expect(response.text).not.toContain(internal);
  }
}

describe('DynamoDB stopped, then started again, under the running service', () => {
  test('serves the list and updates while DynamoDB is up (and caches the authorizer for the first key)', async () => {
    const list = await getList(cachedAuthorization);
    expect(list.status).toBe(200);
    expect(list.text).toBe(listJson);
  });

  test('answers every operation with 503 service_unavailable within the retry bound while DynamoDB is stopped', async () => {
    await db.stop();
    const cases: [string, () => Promise<TestResponse>, string][] = [
      ['GET list, cached token', () => getList(cachedAuthorization), functionUnavailable],
      ['PATCH, cached token', () => patch(cachedAuthorization, '-3', '{"quantity":1}'), functionUnavailable],
      ['GET list, fresh token', () => getList(freshAuthorization), authorizerUnavailable],
      ['PATCH, fresh token', () => patch(freshAuthorization, '-3', '{"quantity":1}'), authorizerUnavailable],
      ['GET list, unknown token', () => getList(`Bearer ${generateApiKey()}`), authorizerUnavailable],
      // Every operation of lib/api.ts, with the cached token: the function's own 503.
      ...probeRequests('-3').map((probe): [string, () => Promise<TestResponse>, string] => [
        `${probe.operation.name}, cached token`,
        () =>
          api.request(probe.method, probe.path, {
            headers: { ...probe.headers, Authorization: cachedAuthorization },
            ...(probe.body ? { body: probe.body } : {}),
          }),
        functionUnavailable,
      ]),
    ];
    for (const [name, send, message] of cases) {
      const { response, ms } = await timed(send);
      expectUnavailable(response, message);
      expect(ms, `${name}: ${ms} ms`).toBeLessThan(refusedBoundMs);
    }
  });

  test('still answers requests that need no database while it is stopped: 401 without a header, 400, unknown route', async () => {
    const noHeader = await api.request('GET', '/inventory');
    expect(noHeader.status).toBe(401);
    const badPetId = await patch(cachedAuthorization, '01', '{"quantity":1}');
    expect(badPetId.status).toBe(400);
    const badBody = await patch(cachedAuthorization, '-3', '{"quantity":-1}');
    expect(badBody.status).toBe(400);
    const noRoute = await api.request('GET', '/pets');
    expect(noRoute.status).toBe(404);
  });

  test('answers 503 within maxAttempts x (connection + request timeout) when DynamoDB accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    let connections = 0;
    const blackhole = createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => blackhole.listen(port, '127.0.0.1', () => resolve()));
    try {
      const { response, ms } = await timed(() => getList(cachedAuthorization));
      expectUnavailable(response, functionUnavailable);
      expect(ms).toBeGreaterThanOrEqual(maxAttempts * requestTimeoutMs - 100);
      expect(ms).toBeLessThan(unresponsiveBoundMs);
      expect(connections).toBe(maxAttempts);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => blackhole.close(() => resolve()));
    }
  }, 20_000);

  test('serves 200 again from the same process once DynamoDB is back on the same port and data folder, with nothing changed', async () => {
    await db.start();
    expect(await api.tableItems()).toEqual([
      storedEntry('-3', 30, 'pending', { reason: 'import' }),
      storedEntry('9223372036854775807', 7, 'available', { reason: 'import' }),
    ]);
    const list = await getList(cachedAuthorization);
    expect(list.status, list.text).toBe(200);
    expect(list.text).toBe(listJson);
    const fresh = await getList(freshAuthorization);
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.text).toBe(listJson);
    const update = await patch(freshAuthorization, '-3', '{"quantity":31}');
    expect(update.status, update.text).toBe(200);
    expect(update.text).toBe(inventoryItemJson({ petId: '-3', quantity: 31, status: 'pending' }));
    expect(await api.tableItems()).toEqual([
      storedEntry('-3', 31, 'pending', {
        reason: 'adjustment',
        keyId: sha256Hex(freshAuthorization.slice('Bearer '.length)).slice(0, 12),
      }),
      storedEntry('9223372036854775807', 7, 'available', { reason: 'import' }),
    ]);
  });
});
