/**
 * Log hygiene (docs/contract.md "Authentication and authorization": a key is never logged; "Errors": no stack, no table names;
 * lib/logger.ts: every line carries the Lambda request id).
 *
 * Logs are turned on for this file (`POWERTOOLS_LOG_LEVEL=DEBUG`, as in staging, set before the service's modules are
 * loaded: the logger reads it once, at import). Powertools Logger writes JSON lines through its own
 * `Console` on `process.stdout` / `process.stderr`, so both streams' `write` are intercepted; the global
 * `console` is intercepted too (the AWS SDK warns through it). A full set of requests runs one at a time:
 * valid, invalid, refused with several kinds of bad credentials, and 503 with the database stopped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalDynamoDb } from 'local-aws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TestApi, TestResponse } from '#test/support/test-api.ts';
import { storeVariables } from '#test/support/test-dynamodb.ts';

process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';

/** Everything written to stdout, stderr or the console, line by line, in order. */
const lines: string[] = [];

function capture(): () => void {
  const restore: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(
        ...String(typeof chunk === 'string' ? chunk : Buffer.from(chunk))
          .split('\n')
          .filter(Boolean),
      );
      return (write as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      lines.push(...args.map(String).join(' ').split('\n').filter(Boolean));
    };
    restore.push(() => {
      console[method] = original;
    });
  }
  return () => {
    for (const undo of restore) undo();
  };
}

interface Exchange {
  name: string;
  /** False when the request is answered before any function runs (unknown route, no header, 413). */
  reachesFunction: boolean;
  status: number;
  /** The log lines written while it ran. */
  lines: string[];
  /** Header values the request carried that must never be logged. */
  secrets: string[];
}

let dataDir: string;
let db: LocalDynamoDb | undefined;
let api: TestApi;
let tableNames: string[];
const exchanges: Exchange[] = [];
/** A key holding only `inventory:read`, named `dashboard`. */
let readOnly: string;

beforeAll(async () => {
  const { freePort } = await import('#test/support/free-port.ts');
  const { startDynamoDb } = await import('local-aws');
  const { localTableNames } = await import('#local/settings.ts');
  const { startTestApi } = await import('#test/support/test-api.ts');
  const { apiKeyDigest, generateApiKey } = await import('#lib/auth/api-key.ts');
  dataDir = await mkdtemp(join(tmpdir(), 'logs-'));
  // Distinctive table names, so that finding one in a log line cannot be a coincidence (the default local
  // inventory table name equals the logger's service name).
  process.env.INVENTORY_TABLE_NAME = 'log-hygiene-inventory-table';
  process.env.API_KEYS_TABLE_NAME = 'log-hygiene-api-keys-table';
  db = await startDynamoDb({ dataDir, port: await freePort() });
  Object.assign(process.env, storeVariables(db));
  api = await startTestApi();
  tableNames = Object.values(localTableNames());
  await api.inventory.putMany([{ petId: '9223372036854775807', quantity: 1, status: 'available' }]);
  const createdAt = '2026-01-01T00:00:00.000Z';
  const revoked = generateApiKey();
  await api.keys.put({ keyDigest: apiKeyDigest(revoked), name: 'revoked', createdAt });
  await api.keys.revoke(apiKeyDigest(revoked), new Date());
  const expired = generateApiKey();
  await api.keys.put({ keyDigest: apiKeyDigest(expired), name: 'expired', createdAt, expiresAt: createdAt });
  const unknown = generateApiKey();
  const fresh = generateApiKey();
  await api.keys.put({ keyDigest: apiKeyDigest(fresh), name: 'fresh', createdAt });
  readOnly = generateApiKey();
  await api.keys.put({
    keyDigest: apiKeyDigest(readOnly),
    name: 'dashboard',
    createdAt,
    scopes: ['inventory:read'],
  });

  const max = '9223372036854775807';
  /** `GET path` with `authorization` (default the test key's; `null` sends none). */
  const get =
    (path: string, authorization: string | null = api.authorization) =>
    () =>
      api.request('GET', path, authorization === null ? {} : { headers: { Authorization: authorization } });
  /** `POST path` with a JSON `body`, the test key and `headers`. */
  const post =
    (path: string, body: string, headers: Record<string, string> = {}) =>
    () =>
      api.request('POST', path, {
        headers: { Authorization: api.authorization, 'Content-Type': 'application/json', ...headers },
        body,
      });
  /** `PATCH /inventory/<petId>` as {@link TestApi.patch} sends it. */
  const patch =
    (petId: string, body: string, headers: Record<string, string> = {}) =>
    () =>
      api.patch(petId, body, headers);
  // Name, request, the values it carries that must never be logged besides the test key, and whether a function
  // runs for it: the Basic scheme and a malformed header are refused by the authorizer's validation expression,
  // so no function runs (local-aws/behaviour.md).
  const requests: [string, () => Promise<TestResponse>, string[]?, boolean?][] = [
    ['GET list', get('/inventory')],
    ['PATCH ok', patch(max, '{"quantity":2}')],
    ['POST pet', post('/pets', '{"name": "Rex", "tags": [{"id": 1, "name": "friendly"}]}')],
    ['GET pet (deprecated)', get(`/pets/${max}`)],
    [
      'POST order with an Idempotency-Key',
      post('/store/orders', `{"petId": ${max}, "quantity": 1}`, { 'Idempotency-Key': 'hygiene-order-1' }),
    ],
    ['POST order, stock short', post('/store/orders', `{"petId": ${max}, "quantity": 5}`)],
    ['GET orders', get('/store/orders?limit=1')],
    // Its 201 shows the signing secret once: the secret, read from the answer, must reach no log line either.
    ['POST webhook endpoint', post('/webhook-endpoints', '{"url": "http://127.0.0.1:9/hooks"}')],
    ['POST webhook endpoint, refused URL', post('/webhook-endpoints', '{"url": "https://10.0.0.1/hooks"}')],
    ['GET webhook endpoints', get('/webhook-endpoints')],
    ['GET one entry', get(`/inventory/${max}`)],
    ['PATCH stale If-Match', patch(max, '{"quantity":2}', { 'If-Match': '"999-sold"' })],
    ['PATCH unknown pet', patch('5', '{"quantity":2}')],
    ['PATCH bad petId', patch('05', '{"quantity":2}')],
    ['PATCH bad body', patch(max, '{"quantity":2,"status":"sold"}')],
    ['PATCH malformed JSON', patch(max, '{"quantity":')],
    ['PATCH text/plain', patch(max, '{"quantity":2}', { 'Content-Type': 'text/plain' })],
    [
      'PATCH read-only key',
      patch(max, '{"quantity":3}', { Authorization: `Bearer ${readOnly}` }),
      [readOnly],
    ],
    ['GET unknown key', get('/inventory', `Bearer ${unknown}`), [unknown]],
    ['GET revoked key', get('/inventory', `Bearer ${revoked}`), [revoked]],
    ['GET expired key', get('/inventory', `Bearer ${expired}`), [expired]],
    ['GET Basic scheme', get('/inventory', `Basic ${api.apiKey}`), [`Basic ${api.apiKey}`], false],
    ['GET malformed', get('/inventory', 'Bearer a b c'), ['a b c'], false],
    ['GET no header', get('/inventory', null), [], false],
    ['GET unknown route', get('/pets'), [], false],
    [
      'GET list, database stopped, cached key',
      async () => {
        await db?.close();
        db = undefined;
        return get('/inventory')();
      },
    ],
    ['GET list, database stopped, fresh key', get('/inventory', `Bearer ${fresh}`), [fresh]],
  ];

  const restore = capture();
  try {
    for (const [name, send, secrets = [], reachesFunction = true] of requests) {
      const start = lines.length;
      const response = await send();
      exchanges.push({
        name,
        reachesFunction,
        status: response.status,
        lines: lines.slice(start),
        // A webhook signing secret in an answer counts among the values never to be logged.
        secrets: [
          api.apiKey,
          api.authorization,
          ...secrets,
          ...(response.text.match(/whsec_[A-Za-z0-9+/]+/g) ?? []),
        ],
      });
    }
  } finally {
    restore();
  }
});
afterAll(async () => {
  await api?.close();
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('log hygiene', () => {
  test('the request set covers 200, 201, 400, 401, 403, 404, 409, 412 and 503 (the logs below are of real outcomes)', () => {
    expect(new Set(exchanges.map((exchange) => exchange.status))).toEqual(
      new Set([200, 201, 400, 401, 403, 404, 409, 412, 503]),
    );
    expect(exchanges.flatMap((exchange) => exchange.lines).length).toBeGreaterThan(0);
  });

  test('no log line contains an API key, an Authorization header value or the word Bearer', () => {
    for (const { name, lines: logged, secrets } of exchanges) {
      for (const line of logged) {
        for (const secret of secrets) expect(line, name).not.toContain(secret);
        expect(line, name).not.toMatch(/bearer/i);
      }
    }
  });

  test('no log line contains a stack trace or a table name', () => {
    for (const { name, lines: logged } of exchanges) {
      for (const line of logged) {
        expect(line, name).not.toMatch(/^\s+at /);
        expect(line, name).not.toMatch(/\\n\s+at /);
        for (const table of tableNames) expect(line, name).not.toContain(table);
      }
    }
  });

  test('every log line is a structured JSON object', () => {
    for (const { name, lines: logged } of exchanges) {
      for (const line of logged) {
        expect(() => JSON.parse(line), `${name}: ${line}`).not.toThrow();
      }
    }
  });

  test('every request that reaches a function writes a JSON log line carrying its Lambda request id', () => {
    const silent = exchanges
      .filter((exchange) => exchange.reachesFunction)
      .filter(
        (exchange) =>
          !exchange.lines.some((line) => {
            try {
              const record = JSON.parse(line);
              return typeof record.function_request_id === 'string' && record.function_request_id.length > 0;
            } catch {
              return false;
            }
          }),
      )
      .map(({ name, status }) => `${name} (${status})`);
    expect(silent).toEqual([]);
  });
});

describe('audit trail (docs/contract.md "Authentication and authorization")', () => {
  /** The JSON log records of the exchange `name`. */
  function records(name: string): Record<string, unknown>[] {
    const exchange = exchanges.find((e) => e.name === name);
    return (exchange?.lines ?? []).map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  test('a write logs one INFO line naming the operation, the status and the key by name and id, never the key', async () => {
    const { apiKeyDigest } = await import('#lib/auth/api-key.ts');
    const writes = records('PATCH ok').filter((r) => r.message === 'write completed');
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({
      level: 'INFO',
      operation: 'updateInventory',
      status: 200,
      keyName: 'local',
      keyId: apiKeyDigest(api.apiKey).slice(0, 12),
    });
  });

  test('a read logs no write line', () => {
    expect(records('GET list').filter((r) => r.message === 'write completed')).toStrictEqual([]);
  });

  test('a write refused for its scope logs the key name and id at INFO, and no write line', () => {
    const lines = records('PATCH read-only key');
    expect(lines.filter((r) => r.message === 'write completed')).toStrictEqual([]);
    expect(lines.find((r) => r.message === 'scope refused')).toMatchObject({
      level: 'INFO',
      keyName: 'dashboard',
      operation: 'updateInventory',
      scope: 'inventory:write',
    });
  });
});
