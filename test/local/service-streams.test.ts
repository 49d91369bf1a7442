/**
 * The local service runs the stream mappings of the stack it serves (docs/local-api.md "The change stream"):
 * this run's synthesized staging stack with a fixture consumer and its mapping on the inventory table's stream
 * added. A first start's seed is delivered (the mapping's checkpoint exists before the tables), the function
 * gets the service's environment overrides (the store's endpoint), a later write reaches it, a record it keeps
 * failing on sends its failure record to the mapping's on-failure queue (a local queue), and close() stops the
 * mapping. A data folder whose tables predate streams gets them turned on.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { inMemory, startDynamoDb } from 'local-aws';
import { createActiveTable, dynamoDbClient, streamFunctionModule, temporaryDir } from 'local-aws/testing';
import { expect, test, vi } from 'vitest';
import { tableLogicalId } from '#infra/inventory-stack.ts';
import { tableKeySchema } from '#lib/admin/tables.ts';
import { type TableDefinition, type TableId, tables } from '#lib/tables.ts';
import { startLocalService } from '#local/service.ts';
import { localTableNames } from '#local/settings.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { servedStagingStack } from '#test/support/synthesized-assembly.ts';

const closers: (() => Promise<unknown>)[] = [];
cleanUpAfterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** One invocation as the fixture function logged it. */
interface Invocation {
  sequences: string[];
  eventNames: string[];
  endpoint: string;
}

test("the served stack's stream mapping gets the seed, then each write, with the service's endpoint; its failures reach its queue", async () => {
  const dir = await temporaryDir('service-streams-');
  const logFile = join(dir, 'invocations.log');
  await writeFile(logFile, '');
  // The fixture as a bundle folder would hold it: `index.mjs` exporting the handler.
  const bundle = join(dir, 'consumer');
  await mkdir(bundle);
  await writeFile(
    join(bundle, 'index.mjs'),
    `export { handler } from ${JSON.stringify(streamFunctionModule)};\n`,
  );
  const stack = await servedStagingStack();
  const template = structuredClone(stack.template);
  template.Resources.FixtureConsumer = {
    Type: 'AWS::Lambda::Function',
    Properties: {
      Handler: 'index.handler',
      Timeout: 10,
      Environment: { Variables: { STREAM_LOG: logFile } },
    },
    Metadata: { 'aws:asset:path': bundle },
  };
  template.Resources.FixtureConsumerMapping = {
    Type: 'AWS::Lambda::EventSourceMapping',
    Properties: {
      EventSourceArn: { 'Fn::GetAtt': [tableLogicalId('inventory'), 'StreamArn'] },
      FunctionName: { Ref: 'FixtureConsumer' },
      StartingPosition: 'LATEST',
      BatchSize: 100,
      MaximumRetryAttempts: 0,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['FixtureFailures', 'Arn'] } } },
    },
  };
  template.Resources.FixtureFailures = {
    Type: 'AWS::SQS::Queue',
    Properties: { QueueName: 'fixture-stream-failures' },
  };
  const service = await startLocalService({
    stack: { ...stack, template },
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
  });
  let closed = false;
  closers.push(async () => {
    if (!closed) await service.close();
  });
  const invocations = async () =>
    (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Invocation);
  const until = (check: (all: Invocation[]) => boolean) =>
    vi.waitFor(
      async () => {
        const all = await invocations();
        expect(check(all), JSON.stringify(all)).toBe(true);
      },
      { timeout: 15_000, interval: 100 },
    );

  // The first start's seed: every entry one INSERT, in one batch.
  await until((all) => all.length >= 1);
  const [seed] = await invocations();
  expect(service.seeded).toBeGreaterThan(0);
  expect(seed?.eventNames).toStrictEqual(Array.from({ length: service.seeded }, () => 'INSERT'));
  expect(seed?.endpoint).toBe(process.env.AWS_ENDPOINT_URL_DYNAMODB);

  // A write to the table (the service's store, as its functions reach it).
  const client = new DynamoDBClient({});
  await client.send(
    new PutItemCommand({
      TableName: localTableNames().inventory,
      Item: { petId: { N: '9000' }, quantity: { N: '2' }, status: { S: 'available' } },
    }),
  );
  await until((all) => all.length >= 2);
  expect((await invocations())[1]?.eventNames).toStrictEqual(['INSERT']);

  // A record the function keeps failing on: its failure record reaches the mapping's on-failure queue.
  await client.send(
    new PutItemCommand({
      TableName: localTableNames().inventory,
      Item: { petId: { N: '9001' }, quantity: { N: '1' }, action: { S: 'throw' } },
    }),
  );
  client.destroy();
  const sqs = new SQSClient({});
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: `${service.awsEndpoint}/000000000000/fixture-stream-failures`,
      WaitTimeSeconds: 10,
    }),
  );
  sqs.destroy();
  const failure = JSON.parse(Messages?.[0]?.Body ?? '{}');
  const poison = (await invocations())[2]?.sequences[0];
  expect(failure.requestContext).toMatchObject({
    condition: 'RetryAttemptsExhausted',
    approximateInvokeCount: 1,
    functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:FixtureConsumer',
  });
  expect(failure.DDBStreamBatchInfo).toMatchObject({
    startSequenceNumber: poison,
    endSequenceNumber: poison,
    batchSize: 1,
  });

  await service.close();
  closed = true;
  expect((await invocations()).length).toBe(3);
});

test('a data folder whose tables were created before streams gets them on the next start', async () => {
  const dataDir = join(await temporaryDir('service-streams-old-'), 'data');
  // The tables as a version before streams created them: the same keys, no StreamSpecification.
  const old = await startDynamoDb({ dataDir });
  const oldClient = dynamoDbClient(old.endpoint, old.credentials);
  const names = localTableNames();
  for (const id of Object.keys(names) as TableId[]) {
    await createActiveTable(oldClient, {
      TableName: names[id],
      BillingMode: 'PAY_PER_REQUEST',
      ...tableKeySchema(id),
    });
  }
  oldClient.destroy();
  await old.close();

  const service = await startLocalService({
    stack: await servedStagingStack(),
    dataDir,
    port: 0,
    host: '127.0.0.1',
  });
  const client = new DynamoDBClient({});
  try {
    expect(service.firstStart).toBe(false);
    const streams: Record<string, boolean> = {};
    for (const id of Object.keys(names) as TableId[]) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: names[id] }));
      streams[id] = Table?.StreamSpecification?.StreamEnabled === true;
    }
    expect(streams).toStrictEqual(
      Object.fromEntries(
        (Object.keys(names) as TableId[]).map((id) => [id, (tables[id] as TableDefinition).stream === true]),
      ),
    );
  } finally {
    client.destroy();
    await service.close();
  }
});
