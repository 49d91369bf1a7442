/**
 * One real local SQS queue for a test (local-aws/events-and-queues.ts: the queues of local-aws/sqs/queues.ts behind the local
 * AWS endpoint of aws-endpoint.ts, started from a one-queue fixture template), with an SQS client signed for it
 * and helpers to read what the queue holds through ReceiveMessage and GetQueueAttributes.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { StoreCredentials } from 'local-aws';
import {
  type EventsAndQueues,
  newStoreCredentials,
  prepareEventsAndQueues,
  temporaryDir,
} from 'local-aws/testing';
import { awsClients } from './aws-clients.ts';

/** A running local queue. */
export interface LocalQueueFixture {
  aws: EventsAndQueues;
  /** `http://127.0.0.1:<port>` of the local AWS endpoint, for `AWS_ENDPOINT_URL_SQS`. */
  endpoint: string;
  /** The credentials the endpoint accepts. */
  credentials: StoreCredentials;
  /** The queue's URL and ARN as the local endpoint gives them. */
  url: string;
  arn: string;
  /** An SQS client on the endpoint, signing with {@link credentials}. */
  sqs: SQSClient;
  /**
   * Every message visible now, oldest first (ReceiveMessage of up to 10 until none is left, all system
   * attributes): each is then in flight for `visibilityTimeout` seconds (default the queue's).
   */
  receiveAll(visibilityTimeout?: number): Promise<Message[]>;
  /** ApproximateNumberOfMessages (visible), ...NotVisible (in flight) and ...Delayed. */
  counts(): Promise<{ visible: number; notVisible: number; delayed: number }>;
  /** Deletes these received messages by their receipt handles. */
  remove(messages: readonly Message[]): Promise<void>;
  /** The second queue of {@link startLocalQueue}'s `sibling`, on the same endpoint (closed with this one). */
  sibling?: LocalQueueFixture;
  close(): Promise<void>;
}

/**
 * Starts the local AWS endpoint with one queue `name` (visibility timeout `visibilityTimeout` seconds, default
 * CloudFormation's 30), and a second one `sibling` with the same settings when given, accepting `credentials`
 * (new ones unless given: a tool's data folder or dynalite's own), writing `<dataDir>/aws-endpoint` when
 * `dataDir` is given, as `npm start` does.
 */
export async function startLocalQueue(options: {
  name: string;
  sibling?: string;
  visibilityTimeout?: number;
  credentials?: StoreCredentials;
  dataDir?: string;
}): Promise<LocalQueueFixture> {
  const credentials = options.credentials ?? newStoreCredentials();
  const queueResource = (QueueName: string) => ({
    Type: 'AWS::SQS::Queue',
    Properties: {
      QueueName,
      ...(options.visibilityTimeout !== undefined && { VisibilityTimeout: options.visibilityTimeout }),
    },
  });
  const aws = await prepareEventsAndQueues({
    template: {
      Resources: {
        Queue: queueResource(options.name),
        ...(options.sibling !== undefined && { SiblingQueue: queueResource(options.sibling) }),
      },
    },
    credentials,
    region: 'us-east-1',
    ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
  });
  aws.start({ assemblyDir: await temporaryDir('local-queue-'), tableName: () => 'unused', overrides: {} });
  const { sqs, events } = awsClients(aws.endpoint, credentials);
  events.destroy();
  const fixture = queueFixture(aws, credentials, sqs, 'Queue');
  if (options.sibling !== undefined) {
    fixture.sibling = { ...queueFixture(aws, credentials, sqs, 'SiblingQueue'), close: async () => {} };
  }
  return fixture;
}

/** The fixture of the queue `logicalId` of `aws`, read through `sqs`. */
function queueFixture(
  aws: EventsAndQueues,
  credentials: StoreCredentials,
  sqs: SQSClient,
  logicalId: string,
): LocalQueueFixture {
  const url = aws.resourceValue(logicalId) as string;
  const fixture: LocalQueueFixture = {
    aws,
    endpoint: aws.endpoint,
    credentials,
    url,
    arn: aws.resourceValue(logicalId, 'Arn') as string,
    sqs,
    async receiveAll(visibilityTimeout) {
      const all: Message[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            MessageSystemAttributeNames: ['All'],
            ...(visibilityTimeout !== undefined && { VisibilityTimeout: visibilityTimeout }),
          }),
        );
        if (Messages.length === 0) return all;
        all.push(...Messages);
      }
    },
    async counts() {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      );
      return {
        visible: Number(Attributes.ApproximateNumberOfMessages),
        notVisible: Number(Attributes.ApproximateNumberOfMessagesNotVisible),
        delayed: Number(Attributes.ApproximateNumberOfMessagesDelayed),
      };
    },
    async remove(messages) {
      for (let start = 0; start < messages.length; start += 10) {
        const { Failed = [] } = await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: url,
            Entries: messages
              .slice(start, start + 10)
              .map((m, index) => ({ Id: String(index), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
        if (Failed.length > 0) throw new Error(`could not delete: ${JSON.stringify(Failed)}`);
      }
    },
    async close() {
      sqs.destroy();
      await aws.close();
    },
  };
  return fixture;
}
