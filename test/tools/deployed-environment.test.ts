/**
 * The operator tools' `--env staging|production` path end to end, offline (docs/contract.md "Operator tooling"):
 * `npm run keys` and `npm run import` run as real child processes, resolve the stack's table names from the
 * outputs of `InventoryService-<env>` with the standard AWS SDK chain, and work on those tables.
 *
 * CloudFormation, which has no local emulator, is a protocol-level stand-in (test/support/
 * cloudformation-stand-in.ts: the Query API's DescribeStacks over HTTP, parsed by the real SDK client).
 * DynamoDB is not faked: it is a real DynamoDB API (an in-memory dynalite) holding tables named as a deployed
 * stack names them. The children reach both only through the SDK's standard endpoint variables
 * (`AWS_ENDPOINT_URL_CLOUDFORMATION`, `AWS_ENDPOINT_URL_DYNAMODB`) and env credentials, and run in an empty
 * working folder without `DATA_DIR`, so a local store would show up there.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureTables } from '#infra/local/dynamodb.ts';
import type { ToolTableId } from '#infra/tools/target.ts';
import { type ChildResult, childEnv, killChildren, runNode, scripts } from '#test/support/child-process.ts';
import {
  type CloudFormationStandIn,
  startCloudFormationStandIn,
} from '#test/support/cloudformation-stand-in.ts';
import { removeTemporaryDirs, temporaryDir } from '#test/support/temporary-dirs.ts';
import {
  inventoryRecord,
  scanTable,
  sha256Hex,
  startTestDynamoDb,
  type TestDynamoDb,
  tableNames,
} from '#test/support/test-dynamodb.ts';

/** The staging stack's tables, named as CloudFormation names a deployed stack's resources. */
const stagingTables: Record<ToolTableId, string> = {
  inventory: 'InventoryService-staging-InventoryTable-ABC123',
  apiKeys: 'InventoryService-staging-ApiKeysTable-XYZ789',
};

let db: TestDynamoDb;
let cloudFormation: CloudFormationStandIn;
/** The children's working folder: stays empty unless a tool falls back to a local store. */
let workDir: string;
let filesDir: string;

beforeAll(async () => {
  db = await startTestDynamoDb({ tables: false });
  await ensureTables(db.client, stagingTables);
  cloudFormation = await startCloudFormationStandIn([
    {
      name: 'InventoryService-staging',
      outputs: {
        ApiUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/',
        InventoryTableName: stagingTables.inventory,
        ApiKeysTableName: stagingTables.apiKeys,
      },
    },
  ]);
  workDir = await temporaryDir('deployed-env-cwd-');
  filesDir = await temporaryDir('deployed-env-files-');
});
afterAll(async () => {
  killChildren();
  await cloudFormation?.close();
  await db?.close();
  await removeTemporaryDirs();
});

/** The environment of a tool run by an operator with AWS credentials, the endpoints pointing here. */
function awsEnv(): NodeJS.ProcessEnv {
  const env = childEnv({
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    // No profile or shared file of the machine running the tests takes part.
    AWS_CONFIG_FILE: join(workDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(workDir, 'no-aws-credentials'),
  });
  for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL', 'AWS_DEFAULT_REGION']) {
    delete env[name];
  }
  return env;
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

describe('keys --env staging works on the tables named by the stack outputs', () => {
  let apiKey: string;

  test('create prints a key once and stores only its digest in the stack keys table', async () => {
    const before = Date.now();
    const requestsBefore = cloudFormation.requests.length;

    const result = await keys('create', 'ci', '--env', 'staging');

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^psk_[A-Za-z0-9_-]{43}\n$/);
    expect(result.stderr).toBe('Created key "ci". It is shown once:\n');
    apiKey = result.stdout.trim();
    expect(cloudFormation.requests.slice(requestsBefore)).toStrictEqual([
      { Action: 'DescribeStacks', StackName: 'InventoryService-staging', Version: '2010-05-15' },
    ]);

    const stored = await scanTable(db.client, stagingTables.apiKeys);
    expect(stored).toHaveLength(1);
    const [record] = stored;
    expect(Object.keys(record ?? {}).sort()).toStrictEqual(['createdAt', 'keyDigest', 'name']);
    expect(record?.keyDigest).toStrictEqual({ S: sha256Hex(apiKey) });
    expect(record?.name).toStrictEqual({ S: 'ci' });
    const createdAt = Date.parse(record?.createdAt?.S ?? '');
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now());
    expect(JSON.stringify(stored)).not.toContain(apiKey.slice(4));
    expect(await scanTable(db.client, stagingTables.inventory)).toStrictEqual([]);
  });

  test('list shows the key by name, digest prefix and state, never the key', async () => {
    const result = await keys('list', '--env', 'staging');

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const line = result.stdout.split('\n').find((l) => l.includes("'ci'"));
    expect(line).toContain(`'${sha256Hex(apiKey).slice(0, 12)}'`);
    expect(line).toContain("'active'");
    expect(result.stdout).not.toContain(apiKey);
    expect(result.stdout).not.toContain(sha256Hex(apiKey));
  });

  test('revoke sets revokedAt on the key in the stack keys table', async () => {
    const before = Date.now();

    const result = await keys('revoke', 'ci', '--env', 'staging');

    expect(result).toStrictEqual({
      code: 0,
      signal: null,
      stdout: 'Revoked 1 key(s) named "ci".\n',
      stderr: '',
    });
    const [record] = await scanTable(db.client, stagingTables.apiKeys);
    expect(record?.keyDigest).toStrictEqual({ S: sha256Hex(apiKey) });
    const revokedAt = record?.revokedAt?.S ?? '';
    expect(revokedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(revokedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(revokedAt)).toBeLessThanOrEqual(Date.now());
    const list = await keys('list', '--env', 'staging');
    expect(list.stdout.split('\n').find((l) => l.includes("'ci'"))).toContain("'revoked'");
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
      inventoryRecord('1', 0, 'sold'),
      inventoryRecord('3', 7, 'available'),
      inventoryRecord('9007199254740993', 12, 'pending'),
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
    expect((await tableNames(db.client)).sort()).toStrictEqual(
      [stagingTables.apiKeys, stagingTables.inventory].sort(),
    );
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
