/**
 * The local SQS queues through @aws-sdk/client-sqs (behaviour.md Q1-Q8): send and receive with
 * MD5s and attributes, visibility timeout, ChangeMessageVisibility, per-message delay, receive counts,
 * redrive to the dead-letter queue, long polling, batches, and SQS's errors.
 */
import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { newStoreCredentials } from '../common/store-credentials.ts';
import { prepareEventsAndQueues } from '../events-and-queues.ts';
import type { Template } from '../template/api-model.ts';
import { type AwsFixture, startAwsFixture } from './support/aws-fixture.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

cleanUpAfterAll();

/**
 * Queues: `work` (visibility 2 s, redrive to `work-dlq` after 2 receives), `plain` (CloudFormation defaults)
 * and `shared` (visibility 60 s), the tenants' queue of the fair receives.
 */
function queuesTemplate(): Template {
  return {
    Resources: {
      Work: {
        Type: 'AWS::SQS::Queue',
        Properties: {
          QueueName: 'work',
          VisibilityTimeout: 2,
          RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['WorkDlq', 'Arn'] }, maxReceiveCount: 2 },
        },
      },
      WorkDlq: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'work-dlq' } },
      Plain: { Type: 'AWS::SQS::Queue' },
      Shared: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'shared', VisibilityTimeout: 60 } },
    },
  };
}

let fixture: AwsFixture;
/** Queue URLs by logical id. */
let url: Record<'Work' | 'WorkDlq' | 'Plain' | 'Shared', string>;
beforeAll(async () => {
  fixture = await startAwsFixture(queuesTemplate);
  url = {
    Work: fixture.aws.resourceValue('Work') as string,
    WorkDlq: fixture.aws.resourceValue('WorkDlq') as string,
    Plain: fixture.aws.resourceValue('Plain') as string,
    Shared: fixture.aws.resourceValue('Shared') as string,
  };
});
afterAll(async () => {
  await fixture?.close();
});

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** Receives from `queueUrl` with every system attribute; the messages (empty when none). */
async function receive(
  queueUrl: string,
  extra: { VisibilityTimeout?: number; WaitTimeSeconds?: number } = {},
) {
  const answer = await fixture.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      ...extra,
    }),
  );
  return answer.Messages ?? [];
}

async function counts(queueUrl: string) {
  const answer = await fixture.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return answer.Attributes;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the queues of the template', () => {
  test('GetQueueUrl answers the URL functions get for a Ref; the attributes are the template values or the defaults', async () => {
    expect(url.Work).toBe(`${fixture.aws.endpoint}/000000000000/work`);
    expect(url.Plain).toBe(`${fixture.aws.endpoint}/000000000000/Plain`);
    const answer = await fixture.sqs.send(new GetQueueUrlCommand({ QueueName: 'work' }));
    expect(answer.QueueUrl).toBe(url.Work);
    expect(fixture.aws.resourceValue('WorkDlq', 'Arn')).toBe('arn:aws:sqs:us-east-1:000000000000:work-dlq');
    expect(fixture.aws.resourceValue('WorkDlq', 'QueueName')).toBe('work-dlq');
    expect(fixture.aws.resourceValue('Plain', 'QueueName')).toBe('Plain');
    const all = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url.Plain, AttributeNames: ['All'] }),
    );
    expect(all.Attributes).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
      QueueArn: 'arn:aws:sqs:us-east-1:000000000000:Plain',
      VisibilityTimeout: '30',
      MessageRetentionPeriod: '345600',
      DelaySeconds: '0',
    });
  });

  test('an unknown queue is QueueDoesNotExist with its query-compatible code', async () => {
    const error = await fixture.sqs
      .send(
        new SendMessageCommand({ QueueUrl: `${fixture.aws.endpoint}/000000000000/nope`, MessageBody: 'x' }),
      )
      .catch((caught: Error) => caught);
    expect(error).toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
      Code: 'AWS.SimpleQueueService.NonExistentQueue',
      $metadata: { httpStatusCode: 400 },
    });
  });
});

describe('send, receive, visibility', () => {
  test('a message is received with its body, its MD5, system attributes and a receive count of 1, then hidden', async () => {
    const sentAt = Date.now();
    const sent = await fixture.sqs.send(
      new SendMessageCommand({ QueueUrl: url.Plain, MessageBody: '{"hello":"world"}' }),
    );
    expect(sent.MD5OfMessageBody).toBe(md5('{"hello":"world"}'));
    const [message, ...rest] = await receive(url.Plain);
    expect(rest).toEqual([]);
    expect(message).toMatchObject({
      MessageId: sent.MessageId,
      Body: '{"hello":"world"}',
      MD5OfBody: md5('{"hello":"world"}'),
      Attributes: {
        ApproximateReceiveCount: '1',
        SenderId: fixture.credentials.accessKeyId,
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
    });
    expect(Number(message?.Attributes?.SentTimestamp)).toBeGreaterThanOrEqual(sentAt - 5);
    expect(await receive(url.Plain)).toEqual([]);
    expect(await counts(url.Plain)).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '1',
      ApproximateNumberOfMessagesDelayed: '0',
    });
    await fixture.sqs.send(
      new DeleteMessageCommand({ QueueUrl: url.Plain, ReceiptHandle: message?.ReceiptHandle }),
    );
    expect(await counts(url.Plain)).toMatchObject({ ApproximateNumberOfMessagesNotVisible: '0' });
  });

  test('message attributes are refused (UnsupportedOperation), not dropped: no served function sends them', async () => {
    await expect(
      fixture.sqs.send(
        new SendMessageCommand({
          QueueUrl: url.Plain,
          MessageBody: 'tagged',
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'greeting' } },
        }),
      ),
    ).rejects.toMatchObject({ name: 'UnsupportedOperation' });
    expect(await counts(url.Plain)).toMatchObject({ ApproximateNumberOfMessages: '0' });
  });

  test('a message not deleted reappears after the visibility timeout, with a new receipt handle and count 2', async () => {
    await fixture.sqs.send(new SendMessageCommand({ QueueUrl: url.Plain, MessageBody: 'again' }));
    const [first] = await receive(url.Plain, { VisibilityTimeout: 1 });
    expect(await receive(url.Plain)).toEqual([]);
    const [second] = await vi.waitFor(
      async () => {
        const received = await receive(url.Plain);
        expect(received).toHaveLength(1);
        return received;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(second).toMatchObject({
      MessageId: first?.MessageId,
      Attributes: { ApproximateReceiveCount: '2' },
    });
    expect(second?.ReceiptHandle).not.toBe(first?.ReceiptHandle);
    expect(second?.Attributes?.ApproximateFirstReceiveTimestamp).toBe(
      first?.Attributes?.ApproximateFirstReceiveTimestamp,
    );
    // The earlier receive's handle no longer deletes it (SQS: succeeds without deleting).
    await fixture.sqs.send(
      new DeleteMessageCommand({ QueueUrl: url.Plain, ReceiptHandle: first?.ReceiptHandle }),
    );
    expect(await counts(url.Plain)).toMatchObject({ ApproximateNumberOfMessagesNotVisible: '1' });
    await fixture.sqs.send(
      new DeleteMessageCommand({ QueueUrl: url.Plain, ReceiptHandle: second?.ReceiptHandle }),
    );
    expect(await counts(url.Plain)).toMatchObject({ ApproximateNumberOfMessagesNotVisible: '0' });
  });

  test('ChangeMessageVisibility 0 makes it receivable at once; on a message no longer in flight it is MessageNotInflight', async () => {
    await fixture.sqs.send(new SendMessageCommand({ QueueUrl: url.Plain, MessageBody: 'change' }));
    const [first] = await receive(url.Plain);
    await fixture.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url.Plain,
        ReceiptHandle: first?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const [second] = await receive(url.Plain);
    expect(second).toMatchObject({
      MessageId: first?.MessageId,
      Attributes: { ApproximateReceiveCount: '2' },
    });
    const stale = await fixture.sqs
      .send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url.Plain,
          ReceiptHandle: first?.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      )
      .catch((caught: Error) => caught);
    expect(stale).toMatchObject({
      name: 'MessageNotInflight',
      Code: 'AWS.SimpleQueueService.MessageNotInflight',
    });
    await fixture.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url.Plain,
        ReceiptHandle: second?.ReceiptHandle,
        VisibilityTimeout: 1,
      }),
    );
    expect(await receive(url.Plain)).toEqual([]);
    const [third] = await receive(url.Plain, { WaitTimeSeconds: 3 });
    expect(third).toMatchObject({
      MessageId: first?.MessageId,
      Attributes: { ApproximateReceiveCount: '3' },
    });
    await fixture.sqs.send(
      new DeleteMessageCommand({ QueueUrl: url.Plain, ReceiptHandle: third?.ReceiptHandle }),
    );
  });

  test('a per-message DelaySeconds keeps it delayed, then receivable', async () => {
    await fixture.sqs.send(
      new SendMessageCommand({ QueueUrl: url.Plain, MessageBody: 'later', DelaySeconds: 1 }),
    );
    expect(await counts(url.Plain)).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '1',
    });
    expect(await receive(url.Plain)).toEqual([]);
    const started = Date.now();
    const [message] = await receive(url.Plain, { WaitTimeSeconds: 5 });
    expect(message?.Body).toBe('later');
    expect(Date.now() - started).toBeLessThan(2000);
    await fixture.sqs.send(
      new DeleteMessageCommand({ QueueUrl: url.Plain, ReceiptHandle: message?.ReceiptHandle }),
    );
  });

  test('a long poll answers as soon as a message is sent', async () => {
    const started = Date.now();
    const polling = receive(url.Plain, { WaitTimeSeconds: 10 });
    await sleep(300);
    await fixture.sqs.send(new SendMessageCommand({ QueueUrl: url.Plain, MessageBody: 'awaited' }));
    const [message] = await polling;
    expect(message?.Body).toBe('awaited');
    expect(Date.now() - started).toBeLessThan(2000);
    await fixture.sqs.send(
      new DeleteMessageCommand({ QueueUrl: url.Plain, ReceiptHandle: message?.ReceiptHandle }),
    );
  });

  test('batches: SendMessageBatch and DeleteMessageBatch answer per entry; more than 10 entries is refused', async () => {
    const sent = await fixture.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url.Plain,
        Entries: [
          { Id: 'a', MessageBody: 'one' },
          { Id: 'b', MessageBody: 'two' },
          { Id: 'c', MessageBody: 'late', DelaySeconds: 901 },
        ],
      }),
    );
    expect(sent.Successful?.map((entry) => [entry.Id, entry.MD5OfMessageBody])).toEqual([
      ['a', md5('one')],
      ['b', md5('two')],
    ]);
    expect(sent.Failed).toEqual([
      {
        Id: 'c',
        SenderFault: true,
        Code: 'InvalidParameterValue',
        Message: 'Value 901 for parameter DelaySeconds is invalid. Reason: must be between 0 and 900.',
      },
    ]);
    const messages = await receive(url.Plain);
    expect(messages.map((message) => message.Body).sort()).toEqual(['one', 'two']);
    const deleted = await fixture.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url.Plain,
        Entries: messages.map((message, i) => ({ Id: `m${i}`, ReceiptHandle: message.ReceiptHandle })),
      }),
    );
    expect(deleted.Successful).toEqual([{ Id: 'm0' }, { Id: 'm1' }]);
    expect(await counts(url.Plain)).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
    });
    const tooMany = await fixture.sqs
      .send(
        new SendMessageBatchCommand({
          QueueUrl: url.Plain,
          Entries: Array.from({ length: 11 }, (_, i) => ({ Id: `e${i}`, MessageBody: 'x' })),
        }),
      )
      .catch((caught: Error) => caught);
    expect(tooMany).toMatchObject({ name: 'TooManyEntriesInBatchRequest' });
  });
});

describe('redrive', () => {
  test('after maxReceiveCount receives the message moves to the dead-letter queue, same id and body', async () => {
    const sent = await fixture.sqs.send(
      new SendMessageCommand({ QueueUrl: url.Work, MessageBody: 'poison' }),
    );
    for (const count of ['1', '2']) {
      const [message] = await receive(url.Work, { VisibilityTimeout: 0 });
      expect(message).toMatchObject({
        MessageId: sent.MessageId,
        Attributes: { ApproximateReceiveCount: count },
      });
    }
    expect(await receive(url.Work)).toEqual([]);
    const [dead] = await receive(url.WorkDlq);
    expect(dead).toMatchObject({
      MessageId: sent.MessageId,
      Body: 'poison',
      Attributes: { ApproximateReceiveCount: '1' },
    });
    expect(await counts(url.Work)).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
    });
  });
});

describe('fair receives by message group (Q10)', () => {
  /** Sends `count` messages `<group>-<n>` of `group` to the shared queue, 10 a request. */
  const sendOf = async (group: string, count: number) => {
    for (let start = 0; start < count; start += 10) {
      await fixture.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url.Shared,
          Entries: Array.from({ length: Math.min(10, count - start) }, (_, index) => ({
            Id: String(index),
            MessageBody: `${group}-${start + index}`,
            MessageGroupId: group,
          })),
        }),
      );
    }
  };
  const bodies = (messages: { Body?: string }[]) => messages.map((message) => message.Body);

  /** Deletes `messages` of the shared queue. */
  const done = (messages: { ReceiptHandle?: string }[]) =>
    Promise.all(
      messages.map((message) =>
        fixture.sqs.send(
          new DeleteMessageCommand({ QueueUrl: url.Shared, ReceiptHandle: message.ReceiptHandle }),
        ),
      ),
    );

  test('a quiet group is received before the older backlog of a noisy group, never first come first served', async () => {
    // The noisy tenant's messages take the consumer 1 s each; the quiet tenant's, no time.
    await sendOf('noisy', 10);
    const slow = await receive(url.Shared);
    expect(bodies(slow)).toStrictEqual(Array.from({ length: 10 }, (_, n) => `noisy-${n}`));
    expect(slow[0]?.Attributes?.MessageGroupId).toBe('noisy');
    await sleep(1000);
    await done(slow);
    await sendOf('quiet', 1);
    await done(await receive(url.Shared));
    // Then both have a backlog, the noisy one's older: the quiet tenant's messages come first.
    await sendOf('noisy', 20);
    await sendOf('quiet', 20);
    const first = await receive(url.Shared);
    expect(bodies(first)).toStrictEqual(Array.from({ length: 10 }, (_, n) => `quiet-${n}`));
    await done(first);
    const second = await receive(url.Shared);
    expect(bodies(second)).toStrictEqual(Array.from({ length: 10 }, (_, n) => `quiet-${10 + n}`));
    await done(second);
    // The noisy tenant is slowed, not starved: once the quiet one's backlog is gone, it is received again.
    const third = await receive(url.Shared);
    expect(bodies(third)).toStrictEqual(Array.from({ length: 10 }, (_, n) => `noisy-${n}`));
    await done(third);
    const last = await receive(url.Shared);
    expect(bodies(last)).toStrictEqual(Array.from({ length: 10 }, (_, n) => `noisy-${10 + n}`));
    await done(last);
  });

  test('among tenants alike, each message taken charges its tenant: a receive shares itself between them', async () => {
    // Two tenants that each used the consumer 1 s for one message, then a backlog of each.
    await sendOf('left', 1);
    await sendOf('right', 1);
    const warmUp = await receive(url.Shared);
    expect(bodies(warmUp).sort()).toStrictEqual(['left-0', 'right-0']);
    await sleep(1000);
    await done(warmUp);
    await sendOf('left', 10);
    await sendOf('right', 10);
    const shared = await receive(url.Shared);
    // Alternating by charge (each taken message adds its tenant's mean time), each tenant's oldest first.
    expect(bodies(shared).filter((body) => body?.startsWith('left')).length).toBe(5);
    expect(bodies(shared).filter((body) => body?.startsWith('right')).length).toBe(5);
    expect(bodies(shared).filter((body) => body?.startsWith('left'))).toStrictEqual([
      'left-0',
      'left-1',
      'left-2',
      'left-3',
      'left-4',
    ]);
  });

  test('a MessageGroupId longer than 128 characters is InvalidParameterValue', async () => {
    const error = await fixture.sqs
      .send(
        new SendMessageCommand({ QueueUrl: url.Shared, MessageBody: 'x', MessageGroupId: 'g'.repeat(129) }),
      )
      .catch((caught: Error) => caught);
    expect(error).toMatchObject({
      name: 'AWS.SimpleQueueService.InvalidParameterValue',
      message: expect.stringContaining('MessageGroupId'),
    });
  });
});

test('Q2: a FIFO queue is refused when the template is loaded', async () => {
  const template: Template = {
    Resources: {
      Jobs: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'jobs.fifo', FifoQueue: true } },
    },
  };
  await expect(prepareEventsAndQueues({ template, credentials: newStoreCredentials() })).rejects.toThrow(
    /Jobs.*FIFO queues are not served locally/,
  );
});
