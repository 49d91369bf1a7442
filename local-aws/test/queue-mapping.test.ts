/**
 * The local SQS event source mapping (behaviour.md M1-M6): the function gets SQS events shaped as
 * Lambda's; with ReportBatchItemFailures only the failed message comes back, after its visibility timeout,
 * while the others are deleted; a function error returns the whole batch; a message failing maxReceiveCount
 * times lands in the dead-letter queue; a slow message does not hold the others.
 */
import { createHash } from 'node:crypto';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Template } from '../template/api-model.ts';
import { type AwsFixture, recordingFunction, startAwsFixture } from './support/aws-fixture.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

cleanUpAfterAll();

/**
 * `deliveries` (visibility 2 s, to `deliveries-dlq` after 3 receives) read by `Worker` through its alias with
 * ReportBatchItemFailures; `tasks` (CloudFormation's defaults: visibility 30 s)
 * read by `Worker` with the mapping's defaults and 2 concurrent batches.
 */
function mappingTemplate(recordFile: string): Template {
  return {
    Resources: {
      Deliveries: {
        Type: 'AWS::SQS::Queue',
        Properties: {
          QueueName: 'deliveries',
          VisibilityTimeout: 2,
          RedrivePolicy: {
            deadLetterTargetArn: { 'Fn::GetAtt': ['DeliveriesDlq', 'Arn'] },
            maxReceiveCount: 3,
          },
        },
      },
      DeliveriesDlq: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'deliveries-dlq' } },
      Worker: recordingFunction(recordFile),
      WorkerAlias: {
        Type: 'AWS::Lambda::Alias',
        Properties: { FunctionName: { Ref: 'Worker' }, Name: 'live' },
      },
      Mapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Deliveries', 'Arn'] },
          FunctionName: { Ref: 'WorkerAlias' },
          BatchSize: 10,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          ScalingConfig: { MaximumConcurrency: 2 },
        },
      },
      Tasks: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'tasks' } },
      TasksMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Tasks', 'Arn'] },
          FunctionName: { 'Fn::GetAtt': ['Worker', 'Arn'] },
          ScalingConfig: { MaximumConcurrency: 2 },
        },
      },
    },
  };
}

let fixture: AwsFixture;
let queueUrl: string;
beforeAll(async () => {
  fixture = await startAwsFixture(mappingTemplate);
  queueUrl = fixture.aws.resourceValue('Deliveries') as string;
});
afterAll(async () => {
  await fixture?.close();
});

type Record = { messageId: string; body: string; attributes: { ApproximateReceiveCount: string } };
const recordOf = (line: { record?: unknown }) => line.record as Record | undefined;
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** The queue's visible and in-flight message counts. */
async function queueCounts(url: string) {
  const answer = await fixture.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return answer.Attributes;
}

describe('the SQS event', () => {
  test('each record is shaped as Lambda delivers it', async () => {
    const body = `{"n":"${Date.now()}"}`;
    const sent = await fixture.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    const [line] = await fixture.waitFor((l) => recordOf(l)?.messageId === sent.MessageId);
    expect(line?.record).toEqual({
      messageId: sent.MessageId,
      receiptHandle: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: fixture.credentials.accessKeyId,
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
      messageAttributes: {},
      md5OfBody: md5(body),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:deliveries',
      awsRegion: 'us-east-1',
    });
  });
});

describe('failures', () => {
  test('ReportBatchItemFailures: only the failed message is invoked again, after its visibility timeout; the others are deleted', async () => {
    const sent = await fixture.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'ok1', MessageBody: 'ok-1' },
          { Id: 'fail', MessageBody: 'fail-once' },
          { Id: 'ok2', MessageBody: 'ok-2' },
        ],
      }),
    );
    const ids = Object.fromEntries((sent.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
    const failing = await fixture.waitFor((l) => recordOf(l)?.messageId === ids.fail, 2);
    const [first, second] = failing.map((l) => ({ at: l.at, record: recordOf(l) as Record }));
    expect(first?.record.attributes.ApproximateReceiveCount).toBe('1');
    expect(second?.record.attributes.ApproximateReceiveCount).toBe('2');
    // Back after the queue's visibility timeout of 2 s, not before.
    expect((second?.at as number) - (first?.at as number)).toBeGreaterThanOrEqual(1950);
    // The others ran once, in the same batch as the failed one's first receive, and were deleted. Once every
    // message is deleted (none visible, none in flight), none runs again.
    await vi.waitFor(
      async () =>
        expect(await queueCounts(queueUrl)).toEqual({
          ApproximateNumberOfMessages: '0',
          ApproximateNumberOfMessagesNotVisible: '0',
        }),
      { timeout: 10_000, interval: 50 },
    );
    const lines = await fixture.recorded();
    for (const id of [ids.ok1, ids.ok2]) {
      const runs = lines.filter((l) => recordOf(l)?.messageId === id);
      expect(runs).toHaveLength(1);
    }
    expect(lines.filter((l) => recordOf(l)?.messageId === ids.fail)).toHaveLength(2);
    expect(await queueCounts(queueUrl)).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  test('a function error returns the whole batch: every message is invoked again', async () => {
    const sent = await fixture.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'before', MessageBody: 'with-throw' },
          { Id: 'throw', MessageBody: 'throw-once' },
        ],
      }),
    );
    const ids = Object.fromEntries((sent.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
    // `before` succeeded in the handler, but the batch failed: it comes back too.
    const again = await fixture.waitFor((l) => recordOf(l)?.messageId === ids.before, 2);
    expect(again.map((l) => recordOf(l)?.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
  });

  test('a message failing maxReceiveCount times is moved to the dead-letter queue and no longer invoked', async () => {
    const sent = await fixture.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'poison' }),
    );
    const runs = await fixture.waitFor((l) => recordOf(l)?.messageId === sent.MessageId, 3);
    expect(runs.map((l) => recordOf(l)?.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    const dlqUrl = fixture.aws.resourceValue('DeliveriesDlq') as string;
    const dead = await fixture.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, WaitTimeSeconds: 5 }));
    expect(dead.Messages?.map((message) => [message.MessageId, message.Body])).toEqual([
      [sent.MessageId, 'poison'],
    ]);
    const after = (await fixture.recorded()).filter((l) => recordOf(l)?.messageId === sent.MessageId);
    expect(after).toHaveLength(3);
  });
});

describe('concurrency', () => {
  test('a handler stuck 5 s on one message does not delay the invocation of a message sent after it', async () => {
    const tasksUrl = fixture.aws.resourceValue('Tasks') as string;
    const slow = await fixture.sqs.send(new SendMessageCommand({ QueueUrl: tasksUrl, MessageBody: 'slow' }));
    await fixture.waitFor((l) => recordOf(l)?.messageId === slow.MessageId);
    const sentAt = Date.now();
    const fast = await fixture.sqs.send(new SendMessageCommand({ QueueUrl: tasksUrl, MessageBody: 'fast' }));
    const [line] = await fixture.waitFor((l) => recordOf(l)?.messageId === fast.MessageId);
    // One invocation's time, far from the 5 s the slow message holds its batch.
    expect((line?.at as number) - sentAt).toBeLessThan(2000);
    expect(await queueCounts(tasksUrl)).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '1',
    });
  });
});
