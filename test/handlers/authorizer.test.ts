/**
 * functions/authorizer invoked directly with TOKEN authorizer events against a real DynamoDB API (in-memory
 * dynalite): docs/service-spec.md §5, docs/contract.md "Authentication and authorization". Keys are arranged with raw PutItem calls, their digests
 * computed here, so the test does not rely on the key tool.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { lambdaContext } from 'local-aws';
import { describe, expect, test } from 'vitest';
import { handlerSuite } from '#test/support/handler-suite.ts';
import { type AuthorizerHandler, tokenAuthorizerEvent } from '#test/support/lambda-events.ts';
import { putItem, type RawItem, scanTable, sha256Hex } from '#test/support/raw-tables.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const suite = handlerSuite<AuthorizerHandler>(() => import('#functions/authorizer/handler.ts'));

const apiArn = 'arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5';
const listArn = `${apiArn}/v1/GET/inventory`;
const updateArn = `${apiArn}/v1/PATCH/inventory/9223372036854775807`;

/** A fresh key in the service's format (`psk_` + 32 random bytes base64url). */
function newKey(): string {
  return `psk_${randomBytes(32).toString('base64url')}`;
}

/** Stores a key record for a new key named `name` with the extra attributes given; returns the key. */
async function storeKey(name: string, extra: RawItem = {}): Promise<string> {
  const key = newKey();
  await putItem(suite.db.client, testTableNames.apiKeys, {
    keyDigest: { S: sha256Hex(key) },
    name: { S: name },
    createdAt: { S: '2026-01-01T00:00:00.000Z' },
    ...extra,
  });
  return key;
}

function authorize(token: string | undefined, methodArn = listArn): Promise<APIGatewayAuthorizerResult> {
  return suite.handler(tokenAuthorizerEvent(token, methodArn), lambdaContext('authorizer'));
}

/** Every scope, as the context carries them for a key stored without scopes (docs/contract.md). */
const everyScope = 'inventory:read inventory:write orders:read orders:write events:read webhooks:manage';

/**
 * The Allow result for `key` named `name` on every method of stage v1 of the calling API: its usage identifier
 * (SHA-256 of `usage-identifier:` + digest, computed here), its id (12 hex digits of the digest), which is also
 * its rotation chain's first key id unless `context` says otherwise, and scopes.
 */
function allowPolicy(
  name: string,
  key: string,
  context: Record<string, string | number> = { scope: everyScope },
): APIGatewayAuthorizerResult {
  return {
    principalId: name,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${apiArn}/v1/*` }],
    },
    usageIdentifierKey: sha256Hex(`usage-identifier:${sha256Hex(key)}`),
    context: {
      keyName: name,
      keyId: sha256Hex(key).slice(0, 12),
      firstKeyId: sha256Hex(key).slice(0, 12),
      ...context,
    },
  };
}

/**
 * Asserts a refusal as API Gateway answers it with ACCESS_DENIED (401): a returned policy denying every method
 * of the stage, with no context and nothing of the key, not a thrown error (a Lambda function error).
 */
async function expectDenied(result: Promise<APIGatewayAuthorizerResult>, token?: string): Promise<void> {
  expect(await result).toStrictEqual({
    principalId: 'refused',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${apiArn}/v1/*` }],
    },
  });
  if (token) expect(JSON.stringify(await result)).not.toContain(token);
}

describe('authorizer allows', () => {
  test('a valid key: Allow on arn:...:apiId/v1/* with principalId the key name, its usage identifier and context', async () => {
    const key = await storeKey('ci-pipeline');

    const result = await authorize(`Bearer ${key}`);

    expect(result).toStrictEqual(allowPolicy('ci-pipeline', key));
    expect(result.usageIdentifierKey).not.toBe(sha256Hex(key));
    expect(JSON.stringify(result)).not.toContain(key);
    expect(JSON.stringify(result)).not.toContain(sha256Hex(key));
  });

  test('the policy covers the whole stage whichever method is called', async () => {
    const key = await storeKey('updater');

    expect(await authorize(`Bearer ${key}`, updateArn)).toStrictEqual(allowPolicy('updater', key));
  });

  test('the scheme name is case-insensitive: bearer and BEARER', async () => {
    const key = await storeKey('case-test');

    expect(await authorize(`bearer ${key}`)).toStrictEqual(allowPolicy('case-test', key));
    expect(await authorize(`BEARER ${key}`)).toStrictEqual(allowPolicy('case-test', key));
  });

  test('a key whose expiry is in the future', async () => {
    const key = await storeKey('expires-later', { expiresAt: { S: '2999-01-01T00:00:00.000Z' } });

    expect(await authorize(`Bearer ${key}`)).toStrictEqual(allowPolicy('expires-later', key));
  });

  test('a key with scopes carries exactly them in context.scope, space-separated', async () => {
    const key = await storeKey('dashboard', {
      scopes: { L: [{ S: 'inventory:read' }, { S: 'orders:read' }] },
    });

    expect(await authorize(`Bearer ${key}`)).toStrictEqual(
      allowPolicy('dashboard', key, { scope: 'inventory:read orders:read' }),
    );
  });

  test('a key made by rotate carries the first key id of its rotation chain in context.firstKeyId', async () => {
    const key = await storeKey('rotated', { firstKeyId: { S: '0123456789ab' } });

    expect(await authorize(`Bearer ${key}`)).toStrictEqual(
      allowPolicy('rotated', key, { firstKeyId: '0123456789ab', scope: everyScope }),
    );
  });

  test('a key with its own throttle carries rateLimit and burstLimit in the context', async () => {
    const key = await storeKey('slow', {
      scopes: { L: [{ S: 'inventory:read' }] },
      rateLimit: { N: '5' },
      burstLimit: { N: '10' },
    });

    expect(await authorize(`Bearer ${key}`)).toStrictEqual(
      allowPolicy('slow', key, { scope: 'inventory:read', rateLimit: 5, burstLimit: 10 }),
    );
  });
});

describe('authorizer records the last use at most once per cache period', () => {
  /** The stored record of `key`, attribute by attribute. */
  async function record(key: string) {
    const items = await scanTable(suite.db.client, testTableNames.apiKeys);
    return items.find((item) => item.keyDigest?.S === sha256Hex(key));
  }

  test('a first use sets lastUsedAt to now and changes nothing else', async () => {
    const key = await storeKey('first-use');
    const before = await record(key);
    const start = Date.now();

    await authorize(`Bearer ${key}`);

    const after = await record(key);
    const { lastUsedAt, ...rest } = after ?? {};
    expect(rest).toStrictEqual(before);
    expect(Date.parse(lastUsedAt?.S ?? '')).toBeGreaterThanOrEqual(start - 1000);
    expect(Date.parse(lastUsedAt?.S ?? '')).toBeLessThanOrEqual(Date.now());
  });

  test('a use within the cache period (300 s) after the recorded one writes nothing', async () => {
    const recent = new Date(Date.now() - 200_000).toISOString();
    const key = await storeKey('recent-use', { lastUsedAt: { S: recent } });
    const before = await scanTable(suite.db.client, testTableNames.apiKeys);

    await authorize(`Bearer ${key}`);
    await authorize(`Bearer ${key}`);

    expect(await scanTable(suite.db.client, testTableNames.apiKeys)).toStrictEqual(before);
  });

  test('a use more than one cache period after the recorded one records it again', async () => {
    const key = await storeKey('old-use', { lastUsedAt: { S: '2026-01-05T00:00:00.000Z' } });
    const start = Date.now();

    await authorize(`Bearer ${key}`);

    expect(Date.parse((await record(key))?.lastUsedAt?.S ?? '')).toBeGreaterThanOrEqual(start - 1000);
  });

  test('a refused key (revoked, expired) changes nothing', async () => {
    await storeKey('revoked-unused', { revokedAt: { S: '2026-02-01T00:00:00.000Z' } });
    const revoked = await storeKey('revoked-too', { revokedAt: { S: '2026-02-01T00:00:00.000Z' } });
    const expired = await storeKey('expired-unused', { expiresAt: { S: '2026-01-02T00:00:00.000Z' } });
    const before = await scanTable(suite.db.client, testTableNames.apiKeys);

    await expectDenied(authorize(`Bearer ${revoked}`));
    await expectDenied(authorize(`Bearer ${expired}`));

    expect(await scanTable(suite.db.client, testTableNames.apiKeys)).toStrictEqual(before);
  });
});

describe('authorizer refuses with a Deny policy on the whole stage (ACCESS_DENIED)', () => {
  test('missing Authorization header', async () => {
    await expectDenied(authorize(undefined));
  });

  test('another scheme (Basic, Token) with a valid key', async () => {
    const key = await storeKey('other-scheme');

    await expectDenied(authorize(`Basic ${key}`));
    await expectDenied(authorize(`Token ${key}`));
    await expectDenied(authorize(key));
  });

  test('empty token', async () => {
    await expectDenied(authorize('Bearer '));
    await expectDenied(authorize('Bearer'));
    await expectDenied(authorize(''));
  });

  test('unknown key', async () => {
    await expectDenied(authorize(`Bearer ${newKey()}`));
  });

  test('a stored digest used as the token is not a key', async () => {
    const key = await storeKey('digest-as-token');

    await expectDenied(authorize(`Bearer ${sha256Hex(key)}`));
  });

  test('revoked key', async () => {
    const key = await storeKey('revoked', { revokedAt: { S: '2026-02-01T00:00:00.000Z' } });

    await expectDenied(authorize(`Bearer ${key}`), key);
  });

  test('expired key', async () => {
    const key = await storeKey('expired', { expiresAt: { S: '2026-01-02T00:00:00.000Z' } });

    await expectDenied(authorize(`Bearer ${key}`), key);
  });

  test('a key whose stored expiry does not parse (fails closed, not open)', async () => {
    const key = await storeKey('bad-expiry', { expiresAt: { S: 'not-a-date' } });

    await expectDenied(authorize(`Bearer ${key}`), key);
  });

  test('a valid key followed by extra words', async () => {
    const key = await storeKey('extra-words');

    await expectDenied(authorize(`Bearer ${key} extra`));
  });
});
