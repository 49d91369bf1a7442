/**
 * The stream mappings of a template served by `startLocalAws` (behaviour.md D7): their starting checkpoints are
 * saved before it returns, so the writes a caller makes before `open()` (its seeding) are read as writes after
 * the mapping's creation, as a deployed mapping exists before any write to its table.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, expect, test, vi } from 'vitest';
import { inMemory } from '../dynamodb/dynamodb.ts';
import { type ServedTemplate, startLocalAws } from '../serve.ts';
import type { Template } from '../template/api-model.ts';
import { streamFunctionModule } from '../testing/index.ts';
import { removeTemporaryDirs, temporaryDir } from '../testing/temporary-dirs.ts';
import { dynamoDbClient } from '../testing/test-store.ts';
import { createTestTables, testTables } from './support/fixture-tables.ts';

/** A streamed table `Items` read by `Consumer` (the stand-in stream consumer) from LATEST; the API a stage only. */
const template = (logFile: string): Template => ({
  Resources: {
    Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'streams' } },
    Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'v1' } },
    Items: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } },
    },
    Consumer: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Handler: 'index.handler',
        Timeout: 10,
        Environment: { Variables: { STREAM_LOG: logFile } },
      },
    },
    Mapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: {
        EventSourceArn: { 'Fn::GetAtt': ['Items', 'StreamArn'] },
        FunctionName: { Ref: 'Consumer' },
        StartingPosition: 'LATEST',
      },
    },
  },
});

let served: ServedTemplate | undefined;
afterAll(async () => {
  await served?.close();
  await removeTemporaryDirs();
});

test('D7: a LATEST mapping delivers the writes made between startLocalAws and open(), with the served endpoint', async () => {
  const dir = await temporaryDir('served-streams-');
  const logFile = join(dir, 'invocations.log');
  await writeFile(logFile, '');
  served = await startLocalAws({
    template: template(logFile),
    assemblyDir: dir,
    functionSource: () => streamFunctionModule,
    tableName: () => testTables.items,
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
    environment: () => ({ AWS_REGION: 'us-east-1' }),
  });
  const { AWS_ENDPOINT_URL_DYNAMODB, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY } = served.variables;
  const client = dynamoDbClient(AWS_ENDPOINT_URL_DYNAMODB as string, {
    accessKeyId: AWS_ACCESS_KEY_ID as string,
    secretAccessKey: AWS_SECRET_ACCESS_KEY as string,
  });
  await createTestTables(client);
  await client.send(
    new PutItemCommand({
      TableName: testTables.items,
      Item: { itemId: { N: '1' }, action: { S: 'seeded' } },
    }),
  );
  client.destroy();

  served.open();
  const invocations = await vi.waitFor(
    async () => {
      const lines = (await readFile(logFile, 'utf8')).split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      return lines.map((line) => JSON.parse(line));
    },
    { timeout: 15_000, interval: 50 },
  );
  expect(invocations[0]).toMatchObject({
    actions: ['seeded'],
    eventNames: ['INSERT'],
    endpoint: AWS_ENDPOINT_URL_DYNAMODB,
  });
}, 60_000);
