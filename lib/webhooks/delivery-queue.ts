/**
 * The webhook delivery queue (SQS): one message per delivery, its visibility timeout carrying the retry delay,
 * its message group the endpoint's id, so that the queue shares its consumers fairly by endpoint (an SQS
 * fair queue: docs/contract.md "History and events"; docs/architecture.md "Events and webhooks").
 * @module
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type DeliveryMessage, deliveryMessageBody } from './delivery-message.ts';

/** Entries per SendMessageBatch request (the SQS maximum). */
export const sendBatchSize = 10;

/** The queue's operations the fan-out, the delivery and the tool use. */
export interface DeliveryQueue {
  /**
   * Sends one message per delivery, in SendMessageBatch requests of up to 10, each in its endpoint's
   * message group and hidden for `delaySeconds` (0-900, SQS's `DelaySeconds`; default 0).
   * @throws Error when SQS reports any entry failed (the caller retries the whole call: at least once).
   */
  send(messages: readonly DeliveryMessage[], delaySeconds?: number): Promise<void>;
  /** Makes the received message with this receipt handle visible again after `seconds` (its retry delay). */
  retryAfter(receiptHandle: string, seconds: number): Promise<void>;
}

/** What the delivery function does with the slow lane (docs/architecture.md "Events and webhooks"). */
export interface SlowLane extends Pick<DeliveryQueue, 'retryAfter'> {
  /**
   * Sends one delivery to the slow lane, in its endpoint's message group, hidden for `delaySeconds` (0-900,
   * SQS's `DelaySeconds`).
   */
  move(message: DeliveryMessage, delaySeconds: number): Promise<void>;
}

/**
 * Sends `message` to the queue at `queueUrl` (the fast lane) in its endpoint's message group: one
 * SendMessage, for the operations that send a delivery themselves (sendTestWebhook, redeliverWebhook: lib/api.ts
 * `sendsDeliveries`).
 */
export async function sendDelivery(
  sqs: SQSClient,
  queueUrl: string,
  message: DeliveryMessage,
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: deliveryMessageBody(message),
      MessageGroupId: message.endpointId,
    }),
  );
}

/**
 * The slow lane at `queueUrl` for the delivery function alone: one SendMessage per move, so that its bundle
 * carries no SendMessageBatch (docs/architecture.md "Bundles").
 */
export function slowLane(sqs: SQSClient, queueUrl: string): SlowLane {
  return {
    async move(message, delaySeconds) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: deliveryMessageBody(message),
          MessageGroupId: message.endpointId,
          DelaySeconds: delaySeconds,
        }),
      );
    },
    retryAfter: (receiptHandle, seconds) => changeVisibility(sqs, queueUrl, receiptHandle, seconds),
  };
}

/**
 * Deletes the received message `receiptHandle` of the queue at `queueUrl` as soon as it is handled, rather than
 * at the end of its batch, so that the fair queue charges its endpoint the time of its own attempt, not of the
 * batch's slowest (docs/architecture.md "Delivery isolation: a fast lane and a slow lane").
 */
export async function deleteHandled(sqs: SQSClient, queueUrl: string, receiptHandle: string): Promise<void> {
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
}

/** ChangeMessageVisibility of the received message `receiptHandle` of the queue at `queueUrl`. */
async function changeVisibility(sqs: SQSClient, queueUrl: string, receiptHandle: string, seconds: number) {
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
}

/**
 * A delivery queue (the fast lane or the slow lane, docs/architecture.md "Events and webhooks") at `queueUrl`
 * through `sqs`: the fan-out's and the tool's.
 */
export function deliveryQueue(sqs: SQSClient, queueUrl: string): DeliveryQueue {
  const QueueUrl = queueUrl;
  return {
    async send(messages, delaySeconds = 0) {
      for (let start = 0; start < messages.length; start += sendBatchSize) {
        const batch = messages.slice(start, start + sendBatchSize);
        const { Failed } = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl,
            Entries: batch.map((message, index) => ({
              Id: String(index),
              MessageBody: deliveryMessageBody(message),
              MessageGroupId: message.endpointId,
              ...(delaySeconds > 0 && { DelaySeconds: delaySeconds }),
            })),
          }),
        );
        if (Failed && Failed.length > 0) {
          const reasons = Failed.map((f) => `${f.Code}: ${f.Message ?? ''}`).join('; ');
          throw new Error(`SQS refused ${Failed.length} of ${batch.length} delivery messages: ${reasons}`);
        }
      }
    },
    retryAfter: (receiptHandle, seconds) => changeVisibility(sqs, QueueUrl, receiptHandle, seconds),
  };
}
