/**
 * Two templates served side by side in one process (README.md "What it serves"): `startLocalAws` writes no
 * process environment; each template gets its own embedded store, EventBridge and SQS endpoint and
 * credentials, returned as the variables a caller sets, and its functions get them in their own environment,
 * so each function reads its own template's table.
 */
import { fileURLToPath } from 'node:url';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, expect, test } from 'vitest';
import { inMemory } from '../dynamodb/dynamodb.ts';
import { type ServedTemplate, startLocalAws } from '../serve.ts';
import type { Template } from '../template/api-model.ts';
import { removeTemporaryDirs, temporaryDir } from '../testing/temporary-dirs.ts';
import { createActiveTable, dynamoDbClient } from '../testing/test-store.ts';

const readerModule = fileURLToPath(new URL('./support/item-reader.ts', import.meta.url));

/** A REST API whose `GET /items` runs `Reader`, which reads the table `Table` (its name in `TABLE_NAME`). */
const template: Template = {
  Resources: {
    Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'items' } },
    Items: {
      Type: 'AWS::ApiGateway::Resource',
      Properties: { ParentId: { 'Fn::GetAtt': ['Api', 'RootResourceId'] }, PathPart: 'items' },
    },
    ItemsGet: {
      Type: 'AWS::ApiGateway::Method',
      Properties: {
        HttpMethod: 'GET',
        ResourceId: { Ref: 'Items' },
        AuthorizationType: 'NONE',
        Integration: { Type: 'AWS_PROXY', Uri: { 'Fn::GetAtt': ['Reader', 'Arn'] } },
      },
    },
    Stage: { Type: 'AWS::ApiGateway::Stage', Properties: { StageName: 'v1' } },
    Reader: {
      Type: 'AWS::Lambda::Function',
      Properties: { Handler: 'index.handler', Environment: { Variables: { TABLE_NAME: { Ref: 'Table' } } } },
    },
    Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    Jobs: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs' } },
  },
};

const served: ServedTemplate[] = [];
afterAll(async () => {
  await Promise.all(served.map((one) => one.close()));
  await removeTemporaryDirs();
});

/** Serves the template with its store in memory and its table named `items`; its functions in us-east-1. */
async function serve(): Promise<ServedTemplate> {
  const one = await startLocalAws({
    template,
    assemblyDir: await temporaryDir('side-by-side-'),
    functionSource: () => readerModule,
    tableName: () => 'items',
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
    environment: () => ({ AWS_REGION: 'us-east-1' }),
  });
  served.push(one);
  return one;
}

/** Creates the `items` table in the store `variables` name and puts `{ id: "1", owner }` in it. */
async function fill(variables: Record<string, string>, owner: string): Promise<void> {
  const client = dynamoDbClient(variables.AWS_ENDPOINT_URL_DYNAMODB as string, {
    accessKeyId: variables.AWS_ACCESS_KEY_ID as string,
    secretAccessKey: variables.AWS_SECRET_ACCESS_KEY as string,
  });
  await createActiveTable(client, {
    TableName: 'items',
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
  await client.send(
    new PutItemCommand({ TableName: 'items', Item: { id: { S: '1' }, owner: { S: owner } } }),
  );
  client.destroy();
}

test('two templates in one process: each its own store and endpoints, no process variable written', async () => {
  const environment = { ...process.env };
  const [first, second] = [await serve(), await serve()] as [ServedTemplate, ServedTemplate];
  expect(process.env).toEqual(environment);

  const names = [
    'AWS_ACCESS_KEY_ID',
    'AWS_ENDPOINT_URL_DYNAMODB',
    'AWS_ENDPOINT_URL_EVENTBRIDGE',
    'AWS_ENDPOINT_URL_SQS',
    'AWS_SECRET_ACCESS_KEY',
  ];
  expect(Object.keys(first.variables).toSorted()).toEqual(names);
  expect(Object.keys(second.variables).toSorted()).toEqual(names);
  for (const name of names) expect(first.variables[name]).not.toBe(second.variables[name]);
  expect(first.variables.AWS_ENDPOINT_URL_SQS).toBe(first.eventsAndQueuesEndpoint);
  expect(first.variables.AWS_ENDPOINT_URL_DYNAMODB).toBe(first.dynamoDb?.endpoint);

  await fill(first.variables, 'first');
  await fill(second.variables, 'second');
  first.open();
  second.open();
  for (const [one, owner] of [
    [first, 'first'],
    [second, 'second'],
  ] as const) {
    const response = await fetch(`${one.baseUrl}/items?id=1`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      item: { id: { S: '1' }, owner: { S: owner } },
      endpoint: one.variables.AWS_ENDPOINT_URL_DYNAMODB,
    });
  }

  await Promise.all(served.splice(0).map((one) => one.close()));
  expect(process.env).toEqual(environment);
}, 60_000);
