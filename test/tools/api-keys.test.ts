import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { temporaryDir } from '@pet-store/local-aws/testing';
import { beforeAll, describe, expect, test } from 'vitest';
import { localEnvironment } from '#local/settings.ts';
import { type ChildResult, childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { freePort } from '#test/support/free-port.ts';
import { expectNewKeyRecord } from '#test/support/key-records.ts';
import { scanTable, sha256Hex } from '#test/support/raw-tables.ts';
import { getInventory, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';
import { runningStore, storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ onDisk: true });
});
cleanUpAfterAll(() => api?.close());

/** `npm run keys -- ...args` on the local store of {@link api.dataDir}. */
function keys(...args: string[]): Promise<ChildResult> {
  return runNode(scripts.keys, args, { env: childEnv({ DATA_DIR: api.dataDir }) });
}

/** Creates a key named `name` with the tool and returns it (asserting the tool succeeded). */
async function createKey(name: string): Promise<string> {
  const result = await keys('create', name);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** The stored record of the key with this digest, attribute by attribute. */
async function storedKey(digest: string) {
  const records = await scanTable(api.dynamoDb, testTableNames.apiKeys);
  return records.find((record) => record.keyDigest?.S === digest);
}

const unauthorizedBody =
  '{"code":"unauthorized","message":"a valid API key is required: send Authorization: Bearer <API_KEY>","status":401}';

describe('keys --help', () => {
  test('exits 0 and describes create, list, revoke and rotate', async () => {
    const result = await keys('--help');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: keys \[options\] \[command\]$/m);
    expect(result.stdout).toMatch(/^ {2}create \[options\] <name> +create a key and print it once/m);
    expect(result.stdout).toMatch(/^ {2}list \[options\] +list keys: id, name, state, scopes, rate/m);
    expect(result.stdout).toMatch(/^ {2}revoke \[options\] <id-or-name> +revoke a key by its id/m);
    expect(result.stdout).toMatch(
      /^ {2}rotate \[options\] <id> +issue a new key with the same name, scopes and$/m,
    );
  });

  test('create --help describes the name, scopes, rate, expiry and --env', async () => {
    const result = await keys('create', '--help');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}name +who or what the key is for$/m);
    expect(result.stdout).toMatch(
      /^ {2}--scope <scopes> +what the key may do, repeatable or comma-separated/m,
    );
    expect(result.stdout).toMatch(/^ {2}--rate <requests> +the key's own limit in requests per second/m);
    expect(result.stdout).toMatch(
      /^ {2}--expires-in-days <days> +the key stops working after this many days/m,
    );
    expect(result.stdout).toMatch(/^ {2}--no-expiry +the key never expires$/m);
    expect(result.stdout).toMatch(
      /^ {2}--env <environment> +a deployed environment instead of the local store/m,
    );
  });
});

/** The record of the key `key` as `keys list --json` shows it. */
async function listed(key: string): Promise<Record<string, unknown> | undefined> {
  const result = await keys('list', '--json');
  expect(result.code, result.stderr).toBe(0);
  const id = sha256Hex(key).slice(0, 12);
  return (JSON.parse(result.stdout) as Record<string, unknown>[]).find((k) => k.id === id);
}

describe('keys create', () => {
  test('prints the key once on stdout, stores only its SHA-256 digest with every scope and the default expiry, and the key works over HTTP', async () => {
    const before = Date.now();
    const result = await keys('create', 'alice');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^psk_[A-Za-z0-9_-]{43}\n$/);
    const key = result.stdout.trim();
    expect(result.stderr).toMatch(/^Created key "alice", valid until \S+Z\. It is shown once:\n$/);

    expectNewKeyRecord(await storedKey(sha256Hex(key)), {
      key,
      name: 'alice',
      createdAfter: before,
      expiresInDays: localEnvironment.apiKeys.expiresInDays,
    });
    const everyStoredValue = JSON.stringify(await scanTable(api.dynamoDb, testTableNames.apiKeys));
    expect(everyStoredValue).not.toContain(key.slice(4));

    expect(await getInventory(api.baseUrl, key)).toStrictEqual({ status: 200, text: '[]' });
  });

  test('--expires-in-days stores the expiry that many days ahead', async () => {
    const result = await keys('create', 'temporary', '--expires-in-days', '90');

    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^Created key "temporary", valid until \S+Z\. It is shown once:\n$/);
    const record = await storedKey(sha256Hex(result.stdout.trim()));
    const days =
      (Date.parse(record?.expiresAt?.S ?? '') - Date.parse(record?.createdAt?.S ?? '')) / 86_400_000;
    expect(days).toBe(90);
  });

  test('--no-expiry stores no expiry, and says so', async () => {
    const result = await keys('create', 'forever', '--no-expiry');

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('Created key "forever", no expiry. It is shown once:\n');
    expect((await storedKey(sha256Hex(result.stdout.trim())))?.expiresAt).toBeUndefined();
  });

  test.each([
    [['--expires-in-days', '0'], '--expires-in-days takes a whole number >= 1'],
    [
      ['--expires-in-days', '5', '--no-expiry'],
      "option '--no-expiry' cannot be used with option '--expires-in-days <days>'",
    ],
    [
      ['--scope', 'inventory:delete'],
      'unknown scope inventory:delete: the scopes are inventory:read, inventory:write, orders:read, orders:write, events:read, webhooks:manage',
    ],
    [['--rate', '0'], '--rate takes a whole number >= 1'],
    [['--burst', '10'], '--burst needs --rate'],
  ])('create %j is refused, exits 1 and stores nothing', async (args, message) => {
    const before = await scanTable(api.dynamoDb, testTableNames.apiKeys);

    const result = await keys('create', 'never', ...args);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(await scanTable(api.dynamoDb, testTableNames.apiKeys)).toStrictEqual(before);
  });

  test('--scope is repeatable and takes comma lists; the key gets exactly those scopes', async () => {
    const scopeOptions = ['--scope', 'inventory:read,orders:read', '--scope', 'orders:write'];
    const result = await keys('create', 'reporting', ...scopeOptions);

    expect(result.code, result.stderr).toBe(0);
    expect((await storedKey(sha256Hex(result.stdout.trim())))?.scopes).toStrictEqual({
      L: [{ S: 'inventory:read' }, { S: 'orders:read' }, { S: 'orders:write' }],
    });
  });

  test('a key created with --scope inventory:read lists but gets 403 forbidden on PATCH', async () => {
    const key = (await keys('create', 'dashboard', '--scope', 'inventory:read')).stdout.trim();

    expect(await getInventory(api.baseUrl, key)).toStrictEqual({ status: 200, text: '[]' });
    const patch = await fetch(`${api.baseUrl}/inventory/1`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: '{"quantity": 1}',
    });
    expect(patch.status).toBe(403);
    expect(await patch.json()).toStrictEqual({
      code: 'forbidden',
      message: 'this API key lacks the scope inventory:write that updateInventory requires',
      status: 403,
    });
  });

  test('--rate 3 stores the rate with a burst of twice it, and the local API throttles the key at that burst', async () => {
    const result = await keys('create', 'batch', '--rate', '3');
    expect(result.code, result.stderr).toBe(0);
    const key = result.stdout.trim();
    expect(await storedKey(sha256Hex(key))).toMatchObject({ rateLimit: { N: '3' }, burstLimit: { N: '6' } });

    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async () => (await getInventory(api.baseUrl, key)).status),
    );
    // The bucket refills 3 tokens a second while the burst is served: at most 6 + 3 per elapsed second pass.
    const refilled = Math.floor((3 * (performance.now() - started)) / 1000);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(6);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(6 + refilled);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
  });
});

describe('keys list', () => {
  test('shows each id, name and state, never the key or its full digest', async () => {
    const key = await createKey('bob');
    const digest = sha256Hex(key);

    const result = await keys('list');

    expect(result.code).toBe(0);
    const bobLine = result.stdout.split('\n').find((line) => line.includes("'bob'"));
    expect(bobLine).toContain(`'${digest.slice(0, 12)}'`);
    expect(bobLine).toContain("'active'");
    expect(bobLine).toContain(
      "'inventory:read inventory:write orders:read orders:write events:read webhooks:manage'",
    );
    expect(bobLine).toContain("'default'");
    expect(result.stdout).toContain("'local'");
    expect(result.stdout).not.toContain(key);
    expect(result.stdout).not.toContain(key.slice(4, 20));
    expect(result.stdout).not.toContain(digest);
    expect(result.stdout).not.toContain(digest.slice(0, 13));
    expect(result.stderr).toBe('');
  });

  test('--json prints one object per key with exactly the operator fields', async () => {
    const key = await createKey('json-reader');

    const summary = await listed(key);

    expect(Object.keys(summary ?? {}).sort()).toStrictEqual(
      [
        'burstLimit',
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'rateLimit',
        'scopes',
        'state',
      ].sort(),
    );
    expect(summary).toMatchObject({
      name: 'json-reader',
      state: 'active',
      rateLimit: null,
      lastUsedAt: null,
    });
  });

  test('shows the last use of a key once it was used', async () => {
    const key = await createKey('used');
    expect((await listed(key))?.lastUsedAt).toBeNull();
    const before = Date.now();

    expect((await getInventory(api.baseUrl, key)).status).toBe(200);

    const lastUsedAt = (await listed(key))?.lastUsedAt as string;
    expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(lastUsedAt)).toBeLessThanOrEqual(Date.now());
  });
});

describe('keys revoke', () => {
  test('by id: the revoked key is refused with 401 while another key of the same name keeps working', async () => {
    const [revoked, kept] = await Promise.all([createKey('carol'), createKey('carol')]);
    const id = sha256Hex(revoked).slice(0, 12);

    const result = await keys('revoke', id);

    expect(result).toMatchObject({
      code: 0,
      stdout: `Revoked 1 key(s): ${id}; API Gateway may keep accepting it for up to 300 s (authorizer cache).\n`,
    });
    expect(await getInventory(api.baseUrl, revoked)).toStrictEqual({
      status: 401,
      text: unauthorizedBody,
    });
    expect(await getInventory(api.baseUrl, kept)).toStrictEqual({ status: 200, text: '[]' });
    expect((await storedKey(sha256Hex(revoked)))?.revokedAt?.S).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect((await storedKey(sha256Hex(kept)))?.revokedAt).toBeUndefined();
    expect((await listed(revoked))?.state).toBe('revoked');
  });

  test('by a name two active keys share: refused without --all, naming both ids; nothing is revoked', async () => {
    const [first, second] = await Promise.all([createKey('twin'), createKey('twin')]);
    const before = await scanTable(api.dynamoDb, testTableNames.apiKeys);

    const result = await keys('revoke', 'twin');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const ids = [sha256Hex(first).slice(0, 12), sha256Hex(second).slice(0, 12)];
    expect([
      `keys: 2 active keys are named "twin" (ids ${ids.join(', ')}): give one id, or --all to revoke them all\n`,
      `keys: 2 active keys are named "twin" (ids ${ids.reverse().join(', ')}): give one id, or --all to revoke them all\n`,
    ]).toContain(result.stderr);
    expect(await scanTable(api.dynamoDb, testTableNames.apiKeys)).toStrictEqual(before);
  });

  test('by a name with --all: every active key of that name', async () => {
    const [first, second] = await Promise.all([createKey('fleet'), createKey('fleet')]);

    const result = await keys('revoke', 'fleet', '--all');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Revoked 2 key\(s\): [0-9a-f]{12}, [0-9a-f]{12}; API Gateway may keep accepting them for up to 300 s \(authorizer cache\)\.\n$/,
    );
    const [firstListed, secondListed] = await Promise.all([listed(first), listed(second)]);
    expect(firstListed?.state).toBe('revoked');
    expect(secondListed?.state).toBe('revoked');
  });

  test('by a name only one active key has', async () => {
    const key = await createKey('unique-name');

    const result = await keys('revoke', 'unique-name');

    expect(result).toMatchObject({
      code: 0,
      stdout: `Revoked 1 key(s): ${sha256Hex(key).slice(0, 12)}; API Gateway may keep accepting it for up to 300 s (authorizer cache).\n`,
    });
    expect(await getInventory(api.baseUrl, key)).toStrictEqual({ status: 401, text: unauthorizedBody });
  });

  test('a key used before its revocation is refused by a fresh server (no authorizer cache)', async () => {
    const key = await createKey('erin');
    expect((await getInventory(api.baseUrl, key)).status).toBe(200);

    expect((await keys('revoke', sha256Hex(key).slice(0, 12))).code).toBe(0);

    // A second server on the same DynamoDB: its authorizer has cached nothing.
    const store = await runningStore(api.dataDir);
    const otherDataDir = await temporaryDir('keys-tool-other-');
    const fresh = await startServerProcess({ ...storeVariables(store), DATA_DIR: otherDataDir });
    try {
      expect(await getInventory(fresh.baseUrl, key)).toStrictEqual({ status: 401, text: unauthorizedBody });
    } finally {
      await fresh.stop();
    }
  });

  test('an unknown id or name exits 1 with a clear message', async () => {
    const result = await keys('revoke', 'nobody');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('keys: no key with the id "nobody" and no active key with that name\n');
  });
});

describe('keys rotate', () => {
  test('issues a working key of the same name, scopes and rate; the old key works until the grace period ends', async () => {
    const old = (await keys('create', 'rotating', '--scope', 'inventory:read', '--rate', '50')).stdout.trim();
    const oldId = sha256Hex(old).slice(0, 12);
    const before = Date.now();

    const result = await keys('rotate', oldId);

    expect(result.code, result.stderr).toBe(0);
    const rotated = result.stdout.trim();
    expect(rotated).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    expect(await getInventory(api.baseUrl, rotated)).toStrictEqual({ status: 200, text: '[]' });
    expect(await getInventory(api.baseUrl, old)).toStrictEqual({ status: 200, text: '[]' });
    const newSummary = await listed(rotated);
    expect(newSummary).toMatchObject({
      name: 'rotating',
      state: 'active',
      scopes: ['inventory:read'],
      rateLimit: 50,
      burstLimit: 100,
    });
    const oldExpiry = Date.parse((await listed(old))?.expiresAt as string);
    const grace = localEnvironment.apiKeys.rotationGraceHours * 3_600_000;
    expect(oldExpiry).toBeGreaterThanOrEqual(before + grace - 1000);
    expect(oldExpiry).toBeLessThanOrEqual(Date.now() + grace);
    expect(result.stderr).toBe(
      `Rotated key ${oldId}: it keeps working until ${new Date(oldExpiry).toISOString()}; API Gateway may keep accepting it for up to 300 s more (authorizer cache). The new key ${sha256Hex(rotated).slice(0, 12)} is shown once:\n`,
    );
  });

  test("the new key joins the old key's rotation chain: its record holds the id of the chain's first key", async () => {
    const first = await createKey('chained');
    const firstId = sha256Hex(first).slice(0, 12);

    const once = (await keys('rotate', firstId)).stdout.trim();
    const twice = (await keys('rotate', sha256Hex(once).slice(0, 12))).stdout.trim();

    expect((await storedKey(sha256Hex(first)))?.firstKeyId).toBeUndefined();
    expect((await storedKey(sha256Hex(once)))?.firstKeyId).toStrictEqual({ S: firstId });
    expect((await storedKey(sha256Hex(twice)))?.firstKeyId).toStrictEqual({ S: firstId });
  });

  test('an id that is not an active key exits 1 and creates nothing', async () => {
    const before = await scanTable(api.dynamoDb, testTableNames.apiKeys);

    const result = await keys('rotate', '0123456789ab');

    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'keys: no active key with the id "0123456789ab"\n',
    });
    expect(await scanTable(api.dynamoDb, testTableNames.apiKeys)).toStrictEqual(before);
  });
});

describe('keys revoke and a key\'s webhook endpoints (docs/contract.md "History and events")', () => {
  /** Creates an endpoint at `url` with `key` through the API: its id. */
  async function endpointOf(key: string, url: string): Promise<string> {
    const response = await fetch(`${api.baseUrl}/webhook-endpoints`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  /** The stored endpoint `id`: its state and disabled reason. */
  async function stateOf(id: string) {
    const items = await scanTable(api.dynamoDb, testTableNames.webhookEndpoints);
    const item = items.find((stored) => stored.subscriptionId?.S === id);
    return { state: item?.state?.S, disabledReason: item?.disabledReason?.S };
  }

  test('revoking the old key of a rotated chain leaves its endpoints to the new key; revoking the last live key disables them at once and says so', async () => {
    const first = await createKey('hooked');
    const firstId = sha256Hex(first).slice(0, 12);
    const endpoint = await endpointOf(first, 'http://127.0.0.1:9/revoked-hooks');
    const rotated = (await keys('rotate', firstId)).stdout.trim();
    const rotatedId = sha256Hex(rotated).slice(0, 12);

    expect(await keys('revoke', firstId)).toMatchObject({
      code: 0,
      stdout: `Revoked 1 key(s): ${firstId}; API Gateway may keep accepting it for up to 300 s (authorizer cache).\n`,
    });
    expect(await stateOf(endpoint)).toStrictEqual({ state: 'enabled', disabledReason: undefined });

    expect(await keys('revoke', rotatedId)).toMatchObject({
      code: 0,
      stdout: `Revoked 1 key(s): ${rotatedId}; API Gateway may keep accepting it for up to 300 s (authorizer cache).\nDisabled 1 webhook endpoint(s) of the revoked key(s): ${endpoint}.\n`,
    });
    expect(await stateOf(endpoint)).toStrictEqual({ state: 'disabled', disabledReason: 'key_revoked' });
  });

  test('an endpoint the fan-out disabled first (it saw the revocation before the tool got to it) is still named', async () => {
    const key = await createKey('raced');
    const keyId = sha256Hex(key).slice(0, 12);
    const endpoint = await endpointOf(key, 'http://127.0.0.1:9/raced-hooks');
    // The fan-out's disable, as its check of the revoked key writes it (lib/webhooks/endpoint-health.ts).
    await api.dynamoDb.send(
      new UpdateItemCommand({
        TableName: testTableNames.webhookEndpoints,
        Key: { subscriptionId: { S: endpoint } },
        UpdateExpression: 'SET #s = :d, disabledAt = :n, disabledReason = :r',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: {
          ':d': { S: 'disabled' },
          ':n': { S: new Date().toISOString() },
          ':r': { S: 'key_revoked' },
        },
      }),
    );
    expect(await keys('revoke', keyId)).toMatchObject({
      code: 0,
      stdout: `Revoked 1 key(s): ${keyId}; API Gateway may keep accepting it for up to 300 s (authorizer cache).\nDisabled 1 webhook endpoint(s) of the revoked key(s): ${endpoint}.\n`,
    });
    expect(await stateOf(endpoint)).toStrictEqual({ state: 'disabled', disabledReason: 'key_revoked' });
  });
});

describe('keys with an unreachable AWS_ENDPOINT_URL_DYNAMODB', () => {
  test('names the unreachable DynamoDB instead of claiming there are no tables', async () => {
    const port = await freePort();

    const result = await runNode(scripts.keys, ['list'], {
      env: childEnv({ AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}` }),
    });

    expect(result).toStrictEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `keys: cannot use the DynamoDB at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    });
  });
});

describe('keys before any npm start', () => {
  test('fails with the clear message when the data folder has no tables', async () => {
    const emptyDir = await temporaryDir('keys-tool-empty-');

    const result = await runNode(scripts.keys, ['list'], { env: childEnv({ DATA_DIR: emptyDir }) });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('keys: the local store has no tables yet: run `npm start` once first\n');
  });
});
