/**
 * The delivery queues' requests (lib/webhooks/delivery-queue.ts; docs/architecture.md "Events and webhooks"): what
 * SQS is asked, recorded by a stand-in client that answers as SQS does, and a partial batch failure refused.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, test } from 'vitest';
import { type DeliveryMessage, deliveryMessageBody } from '#lib/webhooks/delivery-message.ts';
import { deleteHandled, deliveryQueue, sendDelivery, slowLane } from '#lib/webhooks/delivery-queue.ts';

const queueUrl = 'http://127.0.0.1:9324/000000000000/webhook-deliveries';

/** A client recording each command's name and input; SendMessageBatch answers with `failed` entries. */
function recordingSqs(failed: { Id: string; Code: string; Message?: string }[] = []) {
  const sent: [string, unknown][] = [];
  const sqs = {
    send: async (command: { constructor: { name: string }; input: unknown }) => {
      sent.push([command.constructor.name, command.input]);
      return command.constructor.name === 'SendMessageBatchCommand' ? { Failed: failed, Successful: [] } : {};
    },
  } as unknown as SQSClient;
  return { sqs, sent };
}

/** The delivery of event `n` to the endpoint `ws_<n padded>`. */
const delivery = (n: number): DeliveryMessage => ({
  endpointId: `ws_${String(n).padStart(16, '0')}`,
  eventId: `inventory.7.${n}`,
  type: 'inventory.low_stock',
  timestamp: '2026-12-08T09:59:59Z',
  data: { petId: '7', quantity: 1, reorderPoint: 2, sequence: n },
});

describe("the fan-out's and the tool's sends", () => {
  test('23 messages: batches of 10, 10 and 3, each entry in its endpoint group, with no delay unless asked', async () => {
    const { sqs, sent } = recordingSqs();
    const messages = Array.from({ length: 23 }, (_, n) => delivery(n + 1));
    await deliveryQueue(sqs, queueUrl).send(messages);
    expect(
      sent.map(([name, input]) => [name, (input as { Entries: unknown[] }).Entries.length]),
    ).toStrictEqual([
      ['SendMessageBatchCommand', 10],
      ['SendMessageBatchCommand', 10],
      ['SendMessageBatchCommand', 3],
    ]);
    expect(sent[2]?.[1]).toStrictEqual({
      QueueUrl: queueUrl,
      Entries: [21, 22, 23].map((n, index) => ({
        Id: String(index),
        MessageBody: deliveryMessageBody(delivery(n)),
        MessageGroupId: delivery(n).endpointId,
      })),
    });
  });

  test('a delay: every entry hidden for it', async () => {
    const { sqs, sent } = recordingSqs();
    await deliveryQueue(sqs, queueUrl).send([delivery(1)], 30);
    expect(sent).toStrictEqual([
      [
        'SendMessageBatchCommand',
        {
          QueueUrl: queueUrl,
          Entries: [
            {
              Id: '0',
              MessageBody: deliveryMessageBody(delivery(1)),
              MessageGroupId: delivery(1).endpointId,
              DelaySeconds: 30,
            },
          ],
        },
      ],
    ]);
  });

  test('an empty send asks nothing', async () => {
    const { sqs, sent } = recordingSqs();
    await deliveryQueue(sqs, queueUrl).send([]);
    expect(sent).toStrictEqual([]);
  });

  test('an entry SQS refuses fails the send, naming each refusal', async () => {
    const { sqs } = recordingSqs([
      { Id: '0', Code: 'InternalError', Message: 'try again' },
      { Id: '1', Code: 'Throttled' },
    ]);
    await expect(deliveryQueue(sqs, queueUrl).send([delivery(1), delivery(2), delivery(3)])).rejects.toThrow(
      new Error('SQS refused 2 of 3 delivery messages: InternalError: try again; Throttled: '),
    );
  });
});

describe("the delivery's own requests", () => {
  test('a test or redelivery: one SendMessage in the endpoint group', async () => {
    const { sqs, sent } = recordingSqs();
    await sendDelivery(sqs, queueUrl, delivery(4));
    expect(sent).toStrictEqual([
      [
        'SendMessageCommand',
        {
          QueueUrl: queueUrl,
          MessageBody: deliveryMessageBody(delivery(4)),
          MessageGroupId: delivery(4).endpointId,
        },
      ],
    ]);
  });

  test('a move to the slow lane, a retry after a delay, a message deleted once handled', async () => {
    const { sqs, sent } = recordingSqs();
    const lane = slowLane(sqs, queueUrl);
    await lane.move(delivery(5), 900);
    await lane.retryAfter('receipt-1', 300);
    await deliveryQueue(sqs, queueUrl).retryAfter('receipt-2', 5);
    await deleteHandled(sqs, queueUrl, 'receipt-3');
    expect(sent).toStrictEqual([
      [
        'SendMessageCommand',
        {
          QueueUrl: queueUrl,
          MessageBody: deliveryMessageBody(delivery(5)),
          MessageGroupId: delivery(5).endpointId,
          DelaySeconds: 900,
        },
      ],
      [
        'ChangeMessageVisibilityCommand',
        { QueueUrl: queueUrl, ReceiptHandle: 'receipt-1', VisibilityTimeout: 300 },
      ],
      [
        'ChangeMessageVisibilityCommand',
        { QueueUrl: queueUrl, ReceiptHandle: 'receipt-2', VisibilityTimeout: 5 },
      ],
      ['DeleteMessageCommand', { QueueUrl: queueUrl, ReceiptHandle: 'receipt-3' }],
    ]);
  });
});
