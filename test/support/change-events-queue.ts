/**
 * The change-events queue as fanOutWebhooks reads it: a real local bus (local-aws/events-and-queues.ts) whose rule
 * `{"source": ["pet-store"]}` targets a real local queue. Change records are published with the service's own
 * publisher (lib/events/bus.ts `publishChanges`, Detail = the record's exact JSON); the messages the bus put on
 * the queue (body = the event envelope as JSON text, its `detail` the Detail text as sent: local-aws/eventbridge/event-bus.ts)
 * are received and given as the SQS event records Lambda's event source mapping builds
 * (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html).
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { StoreCredentials } from 'local-aws';
import { prepareEventsAndQueues, temporaryDir } from 'local-aws/testing';
import { expect, vi } from 'vitest';
import { publishChanges } from '#lib/events/bus.ts';
import type { ChangeEvent } from '#lib/events/changes.ts';
import { awsClients } from './aws-clients.ts';

/** The local bus's name. */
export const changeEventsBusName = 'pet-store-events';

/** A running bus and change-events queue. */
export interface ChangeEventsQueue {
  /** The queue's ARN (the records' `eventSourceARN`). */
  arn: string;
  /**
   * Publishes `events` on the bus as recordChanges does, receives the messages its rule put on the queue
   * (deleting them, as the mapping does after the batch) and answers them as SQS event records, in order.
   * @throws Error when the queue does not hold one message per event within 5 s
   */
  publish(events: readonly ChangeEvent[]): Promise<SQSRecord[]>;
  /** Sends `body` to the queue as is (a message no bus put there) and answers it as an SQS event record. */
  sendRaw(body: string): Promise<SQSRecord>;
  close(): Promise<void>;
}

/** The SQS event record of a message received from the queue `arn`, as the event source mapping gives it. */
export function sqsRecordOf(m: Message, arn: string): SQSRecord {
  const attributes = m.Attributes ?? {};
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '',
      SentTimestamp: attributes.SentTimestamp ?? '',
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '',
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: 'us-east-1',
  };
}

/** Starts the local bus `pet-store-events`, its rule and the queue `change-events`, accepting `credentials`. */
export async function startChangeEventsQueue(credentials: StoreCredentials): Promise<ChangeEventsQueue> {
  const aws = await prepareEventsAndQueues({
    template: {
      Resources: {
        Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: changeEventsBusName } },
        ChangeEvents: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'change-events' } },
        Rule: {
          Type: 'AWS::Events::Rule',
          Properties: {
            EventBusName: { Ref: 'Bus' },
            EventPattern: { source: ['pet-store'] },
            Targets: [{ Id: 'queue', Arn: { 'Fn::GetAtt': ['ChangeEvents', 'Arn'] } }],
          },
        },
      },
    },
    credentials,
    region: 'us-east-1',
  });
  aws.start({ assemblyDir: await temporaryDir('change-events-'), tableName: () => 'unused', overrides: {} });
  const { sqs, events } = awsClients(aws.endpoint, credentials);
  const url = aws.resourceValue('ChangeEvents') as string;
  const arn = aws.resourceValue('ChangeEvents', 'Arn') as string;

  /** Receives `count` messages (oldest first) and deletes them. */
  const take = async (count: number): Promise<SQSRecord[]> => {
    const taken: Message[] = [];
    await vi.waitFor(
      async () => {
        while (taken.length < count) {
          const { Messages = [] } = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: url,
              MaxNumberOfMessages: 10,
              MessageSystemAttributeNames: ['All'],
            }),
          );
          if (Messages.length === 0) break;
          taken.push(...Messages);
        }
        expect(
          taken.length,
          `the change-events queue held ${taken.length} of ${count} messages`,
        ).toBeGreaterThanOrEqual(count);
      },
      { timeout: 5_000, interval: 20 },
    );
    for (let start = 0; start < taken.length; start += 10) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: taken
            .slice(start, start + 10)
            .map((m, index) => ({ Id: String(index), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
    }
    return taken.map((m) => sqsRecordOf(m, arn));
  };

  return {
    arn,
    async publish(changes) {
      await publishChanges(events, changeEventsBusName, changes);
      return take(changes.length);
    },
    async sendRaw(body) {
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
      const [record] = await take(1);
      return record as SQSRecord;
    },
    async close() {
      sqs.destroy();
      events.destroy();
      await aws.close();
    },
  };
}
