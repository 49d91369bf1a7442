/**
 * No one else on the machine can plant a key digest that the API would then accept (docs/contract.md "Bounded
 * cost, clean shutdown"): the embedded DynamoDB refuses a write signed with other credentials than its store's
 * (local-aws/test/store-credentials.test.ts tests the store's side), so the key never authenticates.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { dynamoDbClient, newStoreCredentials } from 'local-aws/testing';
import { expect, test } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi } from '#test/support/test-api.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';

const cleanups: (() => Promise<unknown>)[] = [];
cleanUpAfterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

/** A key record as the key tool stores it: every scope, for the API key `apiKey`. */
const plantedKey = (apiKey: string) => ({
  keyDigest: { S: apiKeyDigest(apiKey) },
  name: { S: 'planted' },
  createdAt: { S: '2026-01-01T00:00:00.000Z' },
});

test('a key digest planted with other credentials is refused, so the API never accepts its key', async () => {
  const api = await startTestApi();
  cleanups.push(() => api.close());
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB as string;
  const intruder = dynamoDbClient(endpoint, newStoreCredentials());
  cleanups.push(async () => intruder.destroy());
  const apiKey = generateApiKey();

  await expect(
    intruder.send(new PutItemCommand({ TableName: testTableNames.apiKeys, Item: plantedKey(apiKey) })),
  ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  const response = await api.request('GET', '/inventory', {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  expect(response.status).toBe(401);
});
