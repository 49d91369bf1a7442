/**
 * @module The SQS API of the local queues over AWS's JSON 1.0 protocol, as the SDK v3 SQS client speaks it: each
 * operation takes the SDK's own input type and answers its output type (behaviour.md Q1-Q10); the signed
 * transport is aws-endpoint.ts.
 * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/Welcome.html
 * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-json-faqs.html
 */
import type {
  BatchResultErrorEntry,
  ChangeMessageVisibilityRequest,
  DeleteMessageBatchRequest,
  DeleteMessageBatchResult,
  DeleteMessageRequest,
  GetQueueAttributesRequest,
  GetQueueAttributesResult,
  GetQueueUrlRequest,
  GetQueueUrlResult,
  Message,
  ReceiveMessageRequest,
  ReceiveMessageResult,
  SendMessageBatchRequest,
  SendMessageBatchRequestEntry,
  SendMessageBatchResult,
  SendMessageBatchResultEntry,
  SendMessageRequest,
  SendMessageResult,
} from '@aws-sdk/client-sqs';
import type { JsonProtocol, JsonService } from '../common/json-service.ts';
import type { QueueMessage } from './queue-message.ts';
import { type LocalQueue, type LocalQueues, SqsError } from './queues.ts';

/** SQS's protocol: `X-Amz-Target: AmazonSQS.<operation>`, JSON 1.0. */
export const sqsProtocol: JsonProtocol = { targetPrefix: 'AmazonSQS', version: '1.0' };

/** The answer of an operation whose SDK output has no member (DeleteMessage, ChangeMessageVisibility). */
type NoOutput = Record<string, never>;

/** A batch request's entries, each with its `Id`. */
interface BatchRequest<Entry extends { Id: string | undefined }> {
  Entries: Entry[] | undefined;
}

/** A batch answer: the `Id` of each entry that succeeded, with its result, and of each that failed. */
interface BatchResult<Result> {
  Successful: (Result & { Id: string | undefined })[];
  Failed: BatchResultErrorEntry[];
}

/** System attribute names a ReceiveMessage asked for (`MessageSystemAttributeNames`, or the older `AttributeNames`). */
function wanted(names: readonly string[] | undefined): (name: string) => boolean {
  const list = Array.isArray(names) ? names : [];
  return (name) => list.includes('All') || list.includes(name);
}

/**
 * Runs `each` on every entry of a batch request, in order, as SQS checks a batch: an entry's own error is its
 * `Failed` entry, any other error fails the request.
 * @throws SqsError EmptyBatchRequest, TooManyEntriesInBatchRequest, BatchEntryIdsNotDistinct
 */
async function batch<Entry extends { Id: string | undefined }, Result>(
  input: BatchRequest<Entry>,
  entryName: string,
  each: (entry: Entry) => Promise<Result>,
): Promise<BatchResult<Result>> {
  const entries = Array.isArray(input.Entries) ? input.Entries : [];
  if (entries.length === 0)
    throw new SqsError(
      'EmptyBatchRequest',
      'AWS.SimpleQueueService.EmptyBatchRequest',
      `There should be at least one ${entryName} in the request.`,
    );
  if (entries.length > 10)
    throw new SqsError(
      'TooManyEntriesInBatchRequest',
      'AWS.SimpleQueueService.TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are 10. You have sent ${entries.length}.`,
    );
  if (new Set(entries.map((entry) => entry.Id)).size !== entries.length)
    throw new SqsError(
      'BatchEntryIdsNotDistinct',
      'AWS.SimpleQueueService.BatchEntryIdsNotDistinct',
      'Two or more batch entries in the request have the same Id.',
    );
  // Every entry starts in order before any is awaited, so that their journal writes share one batch.
  const outcomes = entries.map((entry) =>
    each(entry).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    ),
  );
  const answer: BatchResult<Result> = { Successful: [], Failed: [] };
  for (const [index, outcome] of (await Promise.all(outcomes)).entries()) {
    const { Id } = entries[index] as Entry;
    if ('result' in outcome) {
      answer.Successful.push({ Id, ...outcome.result });
      continue;
    }
    if (!(outcome.error instanceof SqsError)) throw outcome.error;
    const { type, message } = outcome.error;
    answer.Failed.push({ Id, SenderFault: true, Code: type, Message: message });
  }
  return answer;
}

/** The `MessageId` and `MD5OfMessageBody` of a message sent. */
const sent = (message: QueueMessage): Omit<SendMessageBatchResultEntry, 'Id'> => ({
  MessageId: message.messageId,
  MD5OfMessageBody: message.md5OfBody,
});

/**
 * The SQS service of `queues` for the endpoint: SendMessage(Batch), ReceiveMessage, DeleteMessage(Batch),
 * ChangeMessageVisibility, GetQueueUrl, GetQueueAttributes; `senderId` is the `SenderId` of the messages sent
 * through it (the access key id of the credentials it accepts). Its errors answer 400 with
 * `com.amazonaws.sqs#<type>` and the query-compatible code.
 */
export function sqsService(queues: LocalQueues, senderId: string): JsonService {
  // No function of a served template sends message attributes: refused rather than silently dropped.
  const send = (queue: LocalQueue, input: SendMessageRequest | SendMessageBatchRequestEntry) => {
    if (input.MessageAttributes !== undefined) {
      throw new SqsError(
        'UnsupportedOperation',
        'AWS.SimpleQueueService.UnsupportedOperation',
        'message attributes are not served locally',
      );
    }
    return queue.send(typeof input.MessageBody === 'string' ? input.MessageBody : '', {
      ...(input.DelaySeconds !== undefined ? { delaySeconds: Number(input.DelaySeconds) } : {}),
      ...(input.MessageGroupId !== undefined ? { messageGroupId: String(input.MessageGroupId) } : {}),
      senderId,
    });
  };

  const operations = {
    SendMessage: async (input: SendMessageRequest): Promise<SendMessageResult> =>
      sent(await send(queues.byUrl(input.QueueUrl), input)),

    SendMessageBatch: (input: SendMessageBatchRequest): Promise<SendMessageBatchResult> => {
      const queue = queues.byUrl(input.QueueUrl);
      return batch(input, 'SendMessageBatchRequestEntry', async (entry) => sent(await send(queue, entry)));
    },

    ReceiveMessage: async (input: ReceiveMessageRequest): Promise<ReceiveMessageResult> => {
      const queue = queues.byUrl(input.QueueUrl);
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const waitSeconds = Number(input.WaitTimeSeconds ?? 0);
      if (!Number.isInteger(max) || max < 1 || max > 10)
        throw new SqsError(
          'InvalidParameterValue',
          'AWS.SimpleQueueService.InvalidParameterValue',
          `Value ${max} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.`,
        );
      if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > 20)
        throw new SqsError(
          'InvalidParameterValue',
          'AWS.SimpleQueueService.InvalidParameterValue',
          `Value ${waitSeconds} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.`,
        );
      const received = await queue.receive({
        max,
        waitSeconds,
        ...(input.VisibilityTimeout !== undefined
          ? { visibilityTimeoutSeconds: Number(input.VisibilityTimeout) }
          : {}),
      });
      if (received.length === 0) return {};
      const system = wanted([...(input.MessageSystemAttributeNames ?? []), ...(input.AttributeNames ?? [])]);
      return {
        Messages: received.map(({ message, receiptHandle }): Message => {
          const attributes: NonNullable<Message['Attributes']> = {
            SenderId: message.senderId,
            SentTimestamp: String(message.sentTimestamp),
            ApproximateReceiveCount: String(message.receiveCount),
            ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp),
            ...(message.messageGroupId !== undefined && { MessageGroupId: message.messageGroupId }),
          };
          const chosen = Object.fromEntries(Object.entries(attributes).filter(([name]) => system(name)));
          return {
            MessageId: message.messageId,
            ReceiptHandle: receiptHandle,
            MD5OfBody: message.md5OfBody,
            Body: message.body,
            ...(Object.keys(chosen).length > 0 ? { Attributes: chosen } : {}),
          };
        }),
      };
    },

    DeleteMessage: async (input: DeleteMessageRequest): Promise<NoOutput> => {
      await queues.byUrl(input.QueueUrl).delete(String(input.ReceiptHandle ?? ''));
      return {};
    },

    DeleteMessageBatch: (input: DeleteMessageBatchRequest): Promise<DeleteMessageBatchResult> => {
      const queue = queues.byUrl(input.QueueUrl);
      return batch(input, 'DeleteMessageBatchRequestEntry', async (entry) => {
        await queue.delete(String(entry.ReceiptHandle ?? ''));
        return {};
      });
    },

    ChangeMessageVisibility: async (input: ChangeMessageVisibilityRequest): Promise<NoOutput> => {
      await queues
        .byUrl(input.QueueUrl)
        .changeVisibility(String(input.ReceiptHandle ?? ''), Number(input.VisibilityTimeout));
      return {};
    },

    GetQueueUrl: (input: GetQueueUrlRequest): GetQueueUrlResult => {
      const queue = typeof input.QueueName === 'string' ? queues.find(input.QueueName) : undefined;
      if (!queue || queue.settings.name !== input.QueueName)
        throw new SqsError(
          'QueueDoesNotExist',
          'AWS.SimpleQueueService.NonExistentQueue',
          'The specified queue does not exist.',
        );
      return { QueueUrl: queue.url };
    },

    GetQueueAttributes: (input: GetQueueAttributesRequest): GetQueueAttributesResult => {
      const queue = queues.byUrl(input.QueueUrl);
      const counts = queue.counts();
      const { settings } = queue;
      const all: NonNullable<GetQueueAttributesResult['Attributes']> = {
        ApproximateNumberOfMessages: String(counts.visible),
        ApproximateNumberOfMessagesNotVisible: String(counts.notVisible),
        ApproximateNumberOfMessagesDelayed: String(counts.delayed),
        QueueArn: queue.arn,
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(settings.retentionSeconds),
        DelaySeconds: String(settings.delaySeconds),
        ...(settings.redrive && queue.deadLetterQueue
          ? {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: queue.deadLetterQueue.arn,
                maxReceiveCount: settings.redrive.maxReceiveCount,
              }),
            }
          : {}),
      };
      const pick = wanted(input.AttributeNames);
      return { Attributes: Object.fromEntries(Object.entries(all).filter(([name]) => pick(name))) };
    },
  };

  return {
    protocol: sqsProtocol,
    operations,
    failure: (error) =>
      error instanceof SqsError
        ? {
            status: 400,
            type: `com.amazonaws.sqs#${error.type}`,
            message: error.message,
            queryCode: error.queryCode,
          }
        : undefined,
  };
}
