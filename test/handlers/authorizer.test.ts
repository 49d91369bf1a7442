/**
 * functions/authorizer invoked directly with TOKEN authorizer events against a real DynamoDB API (in-memory
 * dynalite): docs/service-spec.md §5, docs/contract.md "Authentication". Keys are arranged with raw PutItem calls, their digests
 * computed here, so the test does not rely on the key tool.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthorizerHandler,
  lambdaTestContext,
  tokenAuthorizerEvent,
} from '#test/support/lambda-events.ts';
import {
  importHandlerOnTestDynamoDb,
  putItem,
  type RawItem,
  scanTable,
  sha256Hex,
  type TestDynamoDb,
  testTableNames,
} from '#test/support/test-dynamodb.ts';

let db: TestDynamoDb;
let handler: AuthorizerHandler;

beforeAll(async () => {
  ({ db, handler } = await importHandlerOnTestDynamoDb(() => import('#functions/authorizer/handler.ts')));
});
afterAll(() => db?.close());

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
  await putItem(db.client, testTableNames.apiKeys, {
    keyDigest: { S: sha256Hex(key) },
    name: { S: name },
    createdAt: { S: '2026-01-01T00:00:00.000Z' },
    ...extra,
  });
  return key;
}

function authorize(token: string | undefined, methodArn = listArn): Promise<APIGatewayAuthorizerResult> {
  return handler(tokenAuthorizerEvent(token, methodArn), lambdaTestContext('authorizer'));
}

/** The Allow result for the key named `name` on every method of stage v1 of the calling API. */
function allowPolicy(name: string): APIGatewayAuthorizerResult {
  return {
    principalId: name,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${apiArn}/v1/*` }],
    },
    context: { keyName: name },
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
  test('a valid key: Allow on arn:...:apiId/v1/* with principalId and context.keyName the key name', async () => {
    const key = await storeKey('ci-pipeline');

    const result = await authorize(`Bearer ${key}`);

    expect(result).toStrictEqual(allowPolicy('ci-pipeline'));
    expect(JSON.stringify(result)).not.toContain(key);
    expect(JSON.stringify(result)).not.toContain(sha256Hex(key));
  });

  test('the policy covers the whole stage whichever method is called', async () => {
    const key = await storeKey('updater');

    expect(await authorize(`Bearer ${key}`, updateArn)).toStrictEqual(allowPolicy('updater'));
  });

  test('the scheme name is case-insensitive: bearer and BEARER', async () => {
    const key = await storeKey('case-test');

    expect(await authorize(`bearer ${key}`)).toStrictEqual(allowPolicy('case-test'));
    expect(await authorize(`BEARER ${key}`)).toStrictEqual(allowPolicy('case-test'));
  });

  test('a key whose expiry is in the future', async () => {
    const key = await storeKey('expires-later', { expiresAt: { S: '2999-01-01T00:00:00.000Z' } });

    expect(await authorize(`Bearer ${key}`)).toStrictEqual(allowPolicy('expires-later'));
  });

  test('does not change the keys table', async () => {
    const key = await storeKey('read-only');
    const before = await scanTable(db.client, testTableNames.apiKeys);

    await authorize(`Bearer ${key}`);

    expect(await scanTable(db.client, testTableNames.apiKeys)).toStrictEqual(before);
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
