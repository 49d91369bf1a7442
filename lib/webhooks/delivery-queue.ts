/**
 * The webhook delivery queue (SQS): one message per delivery, its visibility timeout carrying the retry delay
 * (docs/contract.md "History and events").
 * @module
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type DeliveryMessage, deliveryMessageBody } from './delivery-message.ts';

/** Entries per SendMessageBatch request (the SQS maximum). */
export const sendBatchSize = 10;

/** The queue's operations the fan-out, the delivery and the tool use. */
export interface DeliveryQueue {
  /**
   * Sends one message per delivery, in SendMessageBatch requests of up to 10.
   * @throws Error when SQS reports any entry failed (the caller retries the whole call: at least once).
   */
  send(messages: readonly DeliveryMessage[]): Promise<void>;
  /** Makes the received message with this receipt handle visible again after `seconds` (its retry delay). */
  retryAfter(receiptHandle: string, seconds: number): Promise<void>;
}

/** A queue URL given, or asked for on first use (and asked again after a failure). */
function lazyQueueUrl(queueUrl: string | (() => Promise<string>)): () => Promise<string> {
  let url: Promise<string> | undefined;
  return () => {
    url ??= typeof queueUrl === 'string' ? Promise.resolve(queueUrl) : queueUrl();
    url.catch(() => {
      url = undefined;
    });
    return url;
  };
}

/**
 * The retrying half of {@link deliveryQueue} alone (the delivery function): it never sends, so its bundle
 * carries no SendMessageBatch (docs/architecture.md "Bundles").
 */
export function deliveryRetries(
  sqs: SQSClient,
  queueUrl: string | (() => Promise<string>),
): Pick<DeliveryQueue, 'retryAfter'> {
  const QueueUrl = lazyQueueUrl(queueUrl);
  return {
    async retryAfter(receiptHandle, seconds) {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: await QueueUrl(),
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: seconds,
        }),
      );
    },
  };
}

/** The delivery queue at `queueUrl` (a URL, or a promise of one resolved on first use) through `sqs`. */
export function deliveryQueue(sqs: SQSClient, queueUrl: string | (() => Promise<string>)): DeliveryQueue {
  const QueueUrl = lazyQueueUrl(queueUrl);
  return {
    async send(messages) {
      for (let start = 0; start < messages.length; start += sendBatchSize) {
        const batch = messages.slice(start, start + sendBatchSize);
        const { Failed } = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: await QueueUrl(),
            Entries: batch.map((message, index) => ({
              Id: String(index),
              MessageBody: deliveryMessageBody(message),
            })),
          }),
        );
        if (Failed && Failed.length > 0) {
          const reasons = Failed.map((f) => `${f.Code}: ${f.Message ?? ''}`).join('; ');
          throw new Error(`SQS refused ${Failed.length} of ${batch.length} delivery messages: ${reasons}`);
        }
      }
    },
    ...deliveryRetries(sqs, QueueUrl),
  };
}

/**
 * The URL of the queue with ARN `arn` (`arn:aws:sqs:<region>:<account>:<name>`), asked of SQS with
 * GetQueueUrl (the URL's form differs between AWS and the local endpoint).
 * @throws Error when `arn` is not a queue ARN.
 */
export async function queueUrlOfArn(sqs: SQSClient, arn: string): Promise<string> {
  const match = /^arn:[^:]+:sqs:[^:]*:([^:]*):([^:]+)$/.exec(arn);
  if (!match) throw new Error(`not an SQS queue ARN: ${arn}`);
  const [, account, name] = match as unknown as [string, string, string];
  const { QueueUrl } = await sqs.send(
    new GetQueueUrlCommand({ QueueName: name, ...(account && { QueueOwnerAWSAccountId: account }) }),
  );
  if (!QueueUrl) throw new Error(`SQS has no URL for ${arn}`);
  return QueueUrl;
}
