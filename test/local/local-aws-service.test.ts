/**
 * `npm start`'s local service with buses and queues in its template (docs/local-api.md "Events and queues"):
 * the endpoint file in the data folder, the process's endpoint variables, functions' environment values that
 * name a queue or a bus, PutEvents from a client configured only by the environment, `sendToQueue`, and a
 * clean close.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { eventsAndQueuesEndpoint } from 'local-aws';
import { endpointFile, temporaryDir } from 'local-aws/testing';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { ServedStack } from '#local/assembly.ts';
import { type LocalService, startLocalService } from '#local/service.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { servedStagingStack } from '#test/support/synthesized-assembly.ts';

cleanUpAfterAll();

/** Records each event with the variables that name the queue, the bus and the endpoints. */
const recorderSource = `import { appendFileSync } from 'node:fs';
const names = ['QUEUE_URL', 'QUEUE_ARN', 'QUEUE_NAME', 'BUS_NAME', 'BUS_ARN', 'AWS_ENDPOINT_URL_SQS', 'AWS_ENDPOINT_URL_EVENTBRIDGE'];
export const handler = async (event) => {
  const env = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  appendFileSync(process.env.RECORD_FILE, JSON.stringify({ event, env }) + '\\n');
};
`;

let service: LocalService;
let dataDir: string;
let recordFile: string;

/** The staging stack with a bus, a queue, and a rule sending pet-store events to a recording function. */
async function stackWithEvents(): Promise<ServedStack> {
  const staging = await servedStagingStack();
  const folder = await temporaryDir('recorder-');
  await writeFile(join(folder, 'index.mjs'), recorderSource);
  recordFile = join(folder, 'recorded.jsonl');
  const template = structuredClone(staging.template);
  Object.assign(template.Resources, {
    TestBus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'test-bus' } },
    TestQueue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'test-queue' } },
    Recorder: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Handler: 'index.handler',
        Timeout: 10,
        Environment: {
          Variables: {
            RECORD_FILE: recordFile,
            QUEUE_URL: { Ref: 'TestQueue' },
            QUEUE_ARN: { 'Fn::GetAtt': ['TestQueue', 'Arn'] },
            QUEUE_NAME: { 'Fn::GetAtt': ['TestQueue', 'QueueName'] },
            BUS_NAME: { Ref: 'TestBus' },
            BUS_ARN: { 'Fn::GetAtt': ['TestBus', 'Arn'] },
          },
        },
      },
      Metadata: { 'aws:asset:path': folder },
    },
    TestRule: {
      Type: 'AWS::Events::Rule',
      Properties: {
        EventBusName: { Ref: 'TestBus' },
        EventPattern: { source: ['pet-store'] },
        Targets: [{ Id: 'recorder', Arn: { 'Fn::GetAtt': ['Recorder', 'Arn'] } }],
      },
    },
  });
  return { ...staging, template };
}

beforeAll(async () => {
  dataDir = await temporaryDir('service-aws-');
  service = await startLocalService({
    stack: await stackWithEvents(),
    dataDir,
    port: 0,
    host: '127.0.0.1',
    seed: false,
  });
});
afterAll(async () => {
  await service?.close();
});

test('the endpoint is advertised in <dataDir>/aws-endpoint and in the process environment', async () => {
  expect(service.awsEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*$/);
  expect((await readFile(endpointFile(dataDir, 'aws-endpoint'), 'utf8')).trim()).toBe(service.awsEndpoint);
  expect(await eventsAndQueuesEndpoint(dataDir)).toBe(service.awsEndpoint);
  expect(process.env.AWS_ENDPOINT_URL_SQS).toBe(service.awsEndpoint);
  expect(process.env.AWS_ENDPOINT_URL_EVENTBRIDGE).toBe(service.awsEndpoint);
});

test("a client configured by the environment puts an event; the rule's function gets it with the queue and bus resolved locally", async () => {
  const events = new EventBridgeClient({});
  const answer = await events.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: 'test-bus',
          Source: 'pet-store',
          DetailType: 'order.changed',
          Detail: '{"orderId":"1"}',
        },
      ],
    }),
  );
  events.destroy();
  expect(answer.FailedEntryCount).toBe(0);
  const lines = await vi.waitFor(
    async () => {
      expect(existsSync(recordFile), 'the function has run').toBe(true);
      return (await readFile(recordFile, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)) as { event: { id: string }; env: Record<string, string> }[];
    },
    { timeout: 10_000, interval: 50 },
  );
  expect(lines.map((line) => line.event.id)).toEqual([answer.Entries?.[0]?.EventId]);
  expect(lines[0]?.env).toEqual({
    QUEUE_URL: `${service.awsEndpoint}/000000000000/test-queue`,
    QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:test-queue',
    QUEUE_NAME: 'test-queue',
    BUS_NAME: 'test-bus',
    BUS_ARN: 'arn:aws:events:us-east-1:000000000000:event-bus/test-bus',
    AWS_ENDPOINT_URL_SQS: service.awsEndpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: service.awsEndpoint,
  });
});

test('sendToQueue puts a message on a queue of the template (by logical id or ARN)', async () => {
  const byId = await service.sendToQueue('TestQueue', '{"failure":1}');
  const byArn = await service.sendToQueue('arn:aws:sqs:us-east-1:000000000000:test-queue', '{"failure":2}');
  const sqs = new SQSClient({});
  const received = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: `${service.awsEndpoint}/000000000000/test-queue`,
      MaxNumberOfMessages: 10,
    }),
  );
  sqs.destroy();
  expect(received.Messages?.map((message) => [message.MessageId, message.Body])).toEqual([
    [byId, '{"failure":1}'],
    [byArn, '{"failure":2}'],
  ]);
  await expect(service.sendToQueue('NoSuchQueue', 'x')).rejects.toThrow('no local queue NoSuchQueue');
});

test('close removes the endpoint file and the variables, and stops answering', async () => {
  const endpoint = service.awsEndpoint;
  await service.close();
  expect(existsSync(endpointFile(dataDir, 'aws-endpoint'))).toBe(false);
  expect(process.env.AWS_ENDPOINT_URL_SQS).toBeUndefined();
  expect(process.env.AWS_ENDPOINT_URL_EVENTBRIDGE).toBeUndefined();
  await expect(fetch(endpoint, { method: 'POST' })).rejects.toThrow();
  service = undefined as unknown as LocalService;
});
