/**
 * The operator tools' `--env staging|production` path end to end, offline (docs/contract.md "Operator tooling"):
 * `npm run keys` and `npm run import` run as real child processes, resolve the stack's table names from the
 * outputs of `InventoryService-<env>` with the standard AWS SDK chain, and work on those tables.
 *
 * CloudFormation and API Gateway's control plane, which have no local emulator, are protocol-level stand-ins
 * (test/support/cloudformation-stand-in.ts: the Query API's DescribeStacks; test/support/api-gateway-stand-in.ts:
 * the REST JSON API of API keys and usage plans), parsed by the real SDK clients.
 * DynamoDB is not faked: it is a real DynamoDB API (an in-memory dynalite) holding tables named as a deployed
 * stack names them. The children reach them only through the SDK's standard endpoint variables
 * (`AWS_ENDPOINT_URL_CLOUDFORMATION`, `AWS_ENDPOINT_URL_API_GATEWAY`, `AWS_ENDPOINT_URL_DYNAMODB`) and env credentials, and run in an empty
 * working folder without `DATA_DIR`, so a local store would show up there.
 */

import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestStore, type TestStore, temporaryDir } from '@pet-store/local-aws/testing';
import { beforeAll, describe, expect, test } from 'vitest';
import { environments } from '#infra/settings.ts';
import { ensureTables } from '#lib/admin/tables.ts';
import type { ToolTableId } from '#ops/target.ts';
import { type ApiGatewayStandIn, startApiGatewayStandIn } from '#test/support/api-gateway-stand-in.ts';
import { type ChildResult, operatorEnv, runNode, scripts } from '#test/support/child-process.ts';
import {
  type CloudFormationStandIn,
  startCloudFormationStandIn,
} from '#test/support/cloudformation-stand-in.ts';
import { expectNewKeyRecord } from '#test/support/key-records.ts';
import { importedRecord, putItem, scanTable, sha256Hex, tableNames } from '#test/support/raw-tables.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { storeVariables } from '#test/support/test-dynamodb.ts';

/** The staging stack's tables, named as CloudFormation names a deployed stack's resources. */
const stagingTables: Record<
  Extract<ToolTableId, 'inventory' | 'apiKeys' | 'webhookEndpoints' | 'webhookEndpointOwners'>,
  string
> = {
  inventory: 'InventoryService-staging-InventoryTable-ABC123',
  apiKeys: 'InventoryService-staging-ApiKeysTable-XYZ789',
  // `keys revoke` disables the webhook endpoints of a chain left without a live key.
  webhookEndpoints: 'InventoryService-staging-WebhookSubscriptionsTable-QRS456',
  webhookEndpointOwners: 'InventoryService-staging-WebhookEndpointOwnersTable-TUV012',
};

let db: TestStore;
let cloudFormation: CloudFormationStandIn;
let apiGateway: ApiGatewayStandIn;
/** The staging stack's REST API id and default usage plan id, as its outputs name them. */
const restApiId = 'abc123';
const defaultUsagePlanId = 'plan01';
/** The children's working folder: stays empty unless a tool falls back to a local store. */
let workDir: string;
let filesDir: string;

beforeAll(async () => {
  db = await startTestStore();
  await ensureTables(db.client, stagingTables);
  cloudFormation = await startCloudFormationStandIn([
    {
      name: 'InventoryService-staging',
      outputs: {
        ApiUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/',
        InventoryTableName: stagingTables.inventory,
        ApiKeysTableName: stagingTables.apiKeys,
        WebhookSubscriptionsTableName: stagingTables.webhookEndpoints,
        WebhookEndpointOwnersTableName: stagingTables.webhookEndpointOwners,
        RestApiId: restApiId,
        UsagePlanId: defaultUsagePlanId,
      },
    },
  ]);
  apiGateway = await startApiGatewayStandIn([
    {
      id: defaultUsagePlanId,
      name: 'InventoryService-staging-default',
      apiStages: [{ apiId: restApiId, stage: 'v1' }],
      throttle: environments.staging.apiKeys.throttle,
    },
  ]);
  workDir = await temporaryDir('deployed-env-cwd-');
  filesDir = await temporaryDir('deployed-env-files-');
});
cleanUpAfterAll(
  () => cloudFormation?.close(),
  () => apiGateway?.close(),
  () => db?.close(),
);

/** The environment of a tool run by an operator with AWS credentials, the endpoints pointing here. */
function awsEnv(): NodeJS.ProcessEnv {
  return operatorEnv(workDir, {
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
    AWS_ENDPOINT_URL_API_GATEWAY: apiGateway.endpoint,
    AWS_REGION: 'us-east-1',
    // The stand-ins accept any credentials; the test DynamoDB only its own.
    ...storeVariables(db),
  });
}

function keys(...args: string[]): Promise<ChildResult> {
  return runNode(scripts.keys, args, { env: awsEnv(), cwd: workDir });
}

function importFile(...args: string[]): Promise<ChildResult> {
  return runNode(scripts.import, args, { env: awsEnv(), cwd: workDir });
}

/** The StackName of every DescribeStacks the stand-in received, in order. */
function describedStacks(): string[] {
  return cloudFormation.requests.filter((r) => r.Action === 'DescribeStacks').map((r) => r.StackName ?? '');
}

describe('keys --env staging works on the tables named by the stack outputs and on its usage plans', () => {
  let apiKey: string;
  let slowKey: string;

  /** The stand-in's API key for `key`: named after the stack and the key id, valued the usage identifier. */
  function gatewayKeyOf(key: string) {
    const name = `InventoryService-staging-${sha256Hex(key).slice(0, 12)}`;
    return [...apiGateway.apiKeys.values()].find((k) => k.name === name);
  }

  /** The usage plans holding the API key of `key`, by name. */
  function plansOf(key: string): string[] {
    const id = gatewayKeyOf(key)?.id;
    return [...apiGateway.usagePlans.values()].filter((p) => id && p.keyIds.includes(id)).map((p) => p.name);
  }

  test('create prints a key once, stores only its digest with every scope and the default expiry, and adds its API key to the default usage plan', async () => {
    const before = Date.now();
    const requestsBefore = cloudFormation.requests.length;

    const result = await keys('create', 'ci', '--env', 'staging');

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^psk_[A-Za-z0-9_-]{43}\n$/);
    expect(result.stderr).toMatch(/^Created key "ci", valid until \S+Z\. It is shown once:\n$/);
    apiKey = result.stdout.trim();
    expect(cloudFormation.requests.slice(requestsBefore)).toStrictEqual([
      { Action: 'DescribeStacks', StackName: 'InventoryService-staging', Version: '2010-05-15' },
    ]);

    const stored = await scanTable(db.client, stagingTables.apiKeys);
    expect(stored).toHaveLength(1);
    expectNewKeyRecord(stored[0], {
      key: apiKey,
      name: 'ci',
      createdAfter: before,
      expiresInDays: environments.staging.apiKeys.expiresInDays,
    });
    expect(JSON.stringify(stored)).not.toContain(apiKey.slice(4));
    expect(await scanTable(db.client, stagingTables.inventory)).toStrictEqual([]);

    expect(gatewayKeyOf(apiKey)).toMatchObject({
      value: sha256Hex(`usage-identifier:${sha256Hex(apiKey)}`),
      enabled: true,
    });
    expect(JSON.stringify([...apiGateway.apiKeys.values()])).not.toContain(apiKey.slice(4));
    expect(plansOf(apiKey)).toStrictEqual(['InventoryService-staging-default']);
  });

  test('create --rate 5 --scope inventory:read puts the API key into a usage plan of that rate on the stage, created once', async () => {
    const options = ['--rate', '5', '--scope', 'inventory:read', '--env', 'staging'];
    const result = await keys('create', 'slow', ...options);
    expect(result.code, result.stderr).toBe(0);
    slowKey = result.stdout.trim();
    const other = await keys('create', 'slow-too', '--rate', '5', '--env', 'staging');
    expect(other.code, other.stderr).toBe(0);

    const planName = 'InventoryService-staging-rate-5-burst-10';
    const plans = [...apiGateway.usagePlans.values()].filter((p) => p.name === planName);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({
      apiStages: [{ apiId: restApiId, stage: 'v1' }],
      throttle: { rateLimit: 5, burstLimit: 10 },
    });
    expect(plansOf(slowKey)).toStrictEqual([planName]);
    expect(plansOf(other.stdout.trim())).toStrictEqual([planName]);
    const record = (await scanTable(db.client, stagingTables.apiKeys)).find(
      (r) => r.keyDigest?.S === sha256Hex(slowKey),
    );
    expect(record).toMatchObject({
      scopes: { L: [{ S: 'inventory:read' }] },
      rateLimit: { N: '5' },
      burstLimit: { N: '10' },
    });
  });

  test('list --json shows each key by id, name, state, scopes and rate, never the key', async () => {
    const result = await keys('list', '--json', '--env', 'staging');

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const listed = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(listed.map((k) => k.name)).toStrictEqual(['ci', 'slow', 'slow-too']);
    expect(listed[1]).toMatchObject({
      id: sha256Hex(slowKey).slice(0, 12),
      state: 'active',
      scopes: ['inventory:read'],
      rateLimit: 5,
      burstLimit: 10,
      lastUsedAt: null,
    });
    expect(result.stdout).not.toContain(apiKey);
    expect(result.stdout).not.toContain(sha256Hex(apiKey));
  });

  test('rotate gives a new key of the same name, scopes and rate in the same usage plan; the old one expires after the grace period', async () => {
    const oldId = sha256Hex(slowKey).slice(0, 12);
    const before = Date.now();

    const result = await keys('rotate', oldId, '--env', 'staging');

    expect(result.code, result.stderr).toBe(0);
    const newKey = result.stdout.trim();
    expect(result.stderr).toMatch(
      new RegExp(
        `^Rotated key ${oldId}: it keeps working until \\S+Z; API Gateway may keep accepting it for up to 300 s more \\(authorizer cache\\)\\. The new key ${sha256Hex(newKey).slice(0, 12)} is shown once:\\n$`,
      ),
    );
    const records = await scanTable(db.client, stagingTables.apiKeys);
    const rotated = records.find((r) => r.keyDigest?.S === sha256Hex(newKey));
    expect(rotated).toMatchObject({
      name: { S: 'slow' },
      scopes: { L: [{ S: 'inventory:read' }] },
      rateLimit: { N: '5' },
      burstLimit: { N: '10' },
    });
    const old = records.find((r) => r.keyDigest?.S === sha256Hex(slowKey));
    const grace = environments.staging.apiKeys.rotationGraceHours * 3_600_000;
    expect(Date.parse(old?.expiresAt?.S ?? '')).toBeGreaterThanOrEqual(before + grace - 1000);
    expect(Date.parse(old?.expiresAt?.S ?? '')).toBeLessThanOrEqual(Date.now() + grace);
    expect(old?.revokedAt).toBeUndefined();
    expect(plansOf(newKey)).toStrictEqual(['InventoryService-staging-rate-5-burst-10']);
    expect(plansOf(slowKey)).toStrictEqual(['InventoryService-staging-rate-5-burst-10']);
  });

  test('revoke <id> sets revokedAt and deletes its API key from API Gateway', async () => {
    const before = Date.now();
    const id = sha256Hex(apiKey).slice(0, 12);

    const result = await keys('revoke', id, '--env', 'staging');

    expect(result).toStrictEqual({
      code: 0,
      signal: null,
      stdout: `Revoked 1 key(s): ${id}; API Gateway may keep accepting it for up to 300 s (authorizer cache).\n`,
      stderr: '',
    });
    const record = (await scanTable(db.client, stagingTables.apiKeys)).find(
      (r) => r.keyDigest?.S === sha256Hex(apiKey),
    );
    const revokedAt = record?.revokedAt?.S ?? '';
    expect(revokedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(revokedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(revokedAt)).toBeLessThanOrEqual(Date.now());
    expect(gatewayKeyOf(apiKey)).toBeUndefined();
    expect(plansOf(apiKey)).toStrictEqual([]);
    const list = JSON.parse((await keys('list', '--json', '--env', 'staging')).stdout) as {
      id: string;
      state: string;
    }[];
    expect(list.find((k) => k.id === id)?.state).toBe('revoked');
  });
});

describe('keys sync --env staging', () => {
  test('gives an active key stored before per-key throttling its API key in the default plan, once', async () => {
    const legacy = `psk_${'a'.repeat(43)}`;
    await putItem(db.client, stagingTables.apiKeys, {
      keyDigest: { S: sha256Hex(legacy) },
      name: { S: 'legacy' },
      createdAt: { S: '2025-01-01T00:00:00.000Z' },
    });
    const id = sha256Hex(legacy).slice(0, 12);

    const first = await keys('sync', '--env', 'staging');
    const second = await keys('sync', '--env', 'staging');

    expect(first).toStrictEqual({
      code: 0,
      signal: null,
      stdout: `Added the API keys of 1 key(s): ${id}.\n`,
      stderr: '',
    });
    expect(second.stdout).toBe('Every active key has its API key.\n');
    const apiKey = [...apiGateway.apiKeys.values()].find((k) => k.name === `InventoryService-staging-${id}`);
    expect(apiKey?.value).toBe(sha256Hex(`usage-identifier:${sha256Hex(legacy)}`));
    expect(apiGateway.usagePlans.get(defaultUsagePlanId)?.keyIds).toContain(apiKey?.id);
  });
});

describe('import --env staging', () => {
  test('writes exactly the file rows into the stack inventory table and names the stack', async () => {
    const path = join(filesDir, 'stock.csv');
    await writeFile(path, 'petId,quantity,status\n3,7,available\n1,0,sold\n9007199254740993,12,pending\n');

    const result = await importFile(path, '--env', 'staging');

    expect(result).toStrictEqual({
      code: 0,
      signal: null,
      stdout: 'Imported 3 entries into stack InventoryService-staging.\n',
      stderr: '\rimported 3/3\n',
    });
    expect(await scanTable(db.client, stagingTables.inventory)).toStrictEqual([
      importedRecord('1', 0, 'sold'),
      importedRecord('3', 7, 'available'),
      importedRecord('9007199254740993', 12, 'pending'),
    ]);
  });
});

describe('the --env path resolves tables only from the stack', () => {
  test('every tool run asked CloudFormation for InventoryService-staging and nothing else', () => {
    expect(cloudFormation.requests.every((r) => r.Action === 'DescribeStacks')).toBe(true);
    expect(new Set(describedStacks())).toStrictEqual(new Set(['InventoryService-staging']));
    expect(describedStacks().length).toBeGreaterThanOrEqual(5);
  });

  test('no local store or extra table was created', async () => {
    expect(await readdir(workDir)).toStrictEqual([]);
    expect((await tableNames(db.client)).sort()).toStrictEqual(Object.values(stagingTables).sort());
  });
});

describe('--env of a stack that does not exist', () => {
  test('keys exits 1 naming the missing stack, without a stack trace, touching no table', async () => {
    const before = await scanTable(db.client, stagingTables.apiKeys);

    const result = await keys('create', 'ops', '--env', 'production');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('InventoryService-production');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(describedStacks().at(-1)).toBe('InventoryService-production');
    expect(await scanTable(db.client, stagingTables.apiKeys)).toStrictEqual(before);
  });

  test('import exits 1 naming the missing stack, without a stack trace', async () => {
    const path = join(filesDir, 'one.csv');
    await writeFile(path, 'petId,quantity,status\n5,1,sold\n');

    const result = await importFile(path, '--env', 'production');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('InventoryService-production');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('--env takes only staging or production', () => {
  test('keys --env nope is refused by the option parser before any AWS call', async () => {
    const requestsBefore = cloudFormation.requests.length;

    const result = await keys('list', '--env', 'nope');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "error: option '--env <environment>' argument 'nope' is invalid. Allowed choices are staging, production.\n",
    );
    expect(cloudFormation.requests.length).toBe(requestsBefore);
  });

  test('import --env nope is refused by the option parser before any AWS call', async () => {
    const requestsBefore = cloudFormation.requests.length;

    const result = await importFile(join(filesDir, 'stock.csv'), '--env', 'nope');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "error: option '--env <environment>' argument 'nope' is invalid. Allowed choices are staging, production.\n",
    );
    expect(cloudFormation.requests.length).toBe(requestsBefore);
  });
});
