/**
 * The webhook functions invoked directly with the events Lambda gives them, against dynalite (the
 * subscription and failure tables), an SQS stand-in (test/support/sqs-stand-in.ts: what was sent, visibility
 * changes) and local HTTP receivers.
 */

import { type AttributeValue, DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { InventoryChange, OrderChange } from '#lib/events/changes.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import { type SqsStandIn, startSqsStandIn } from '#test/support/sqs-stand-in.ts';
import {
  setFunctionEnvironment,
  startTestDynamoDb,
  type TestDynamoDb,
  testTableNames,
} from '#test/support/test-dynamodb.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

type FanOutHandler = (
  event: EventBridgeEvent<string, InventoryChange | OrderChange>,
) => Promise<{ messages: number }>;
type DeliverHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

let db: TestDynamoDb;
let sqs: SqsStandIn;
let fast: WebhookReceiver;
let failing: WebhookReceiver;
let fanOut: FanOutHandler;
let deliver: DeliverHandler;

beforeAll(async () => {
  db = await startTestDynamoDb();
  sqs = await startSqsStandIn();
  fast = await startWebhookReceiver();
  failing = await startWebhookReceiver();
  setFunctionEnvironment(db.endpoint, db.credentials);
  Object.assign(process.env, {
    WEBHOOK_SUBSCRIPTIONS_TABLE_NAME: testTableNames.webhookSubscriptions,
    WEBHOOK_FAILURES_TABLE_NAME: testTableNames.webhookFailures,
    WEBHOOK_DELIVERY_QUEUE_URL: sqs.queueUrl,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    WEBHOOK_RETRY_DELAYS: '5,300',
    WEBHOOK_URL_POLICY: 'local',
    // Metrics on (the functions' test environment turns them off), so that the EMF lines are written.
    POWERTOOLS_METRICS_DISABLED: 'false',
  });
  fanOut = (await import('#functions/fan-out-webhooks/handler.ts')).handler as FanOutHandler;
  deliver = (await import('#functions/deliver-webhooks/handler.ts')).handler;
});
afterAll(async () => {
  await fast?.close();
  await failing?.close();
  await sqs?.close();
  await db?.close();
});

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Stores a subscription as the webhook tool does. */
async function subscribe(subscriptionId: string, url: string, events: string[]) {
  await db.client.send(
    new PutItemCommand({
      TableName: testTableNames.webhookSubscriptions,
      Item: {
        subscriptionId: { S: subscriptionId },
        url: { S: url },
        events: { L: events.map((e) => ({ S: e })) },
        secret: { S: secret },
        createdAt: { S: '2026-11-26T08:00:00.000Z' },
      },
    }),
  );
}

async function clearTable(table: string, keys: string[]) {
  for (const item of await scanTable(db.client, table)) {
    await db.client.send(
      new DeleteItemCommand({
        TableName: table,
        Key: Object.fromEntries(keys.map((k) => [k, item[k] as AttributeValue])),
      }),
    );
  }
}

beforeEach(async () => {
  await clearTable(testTableNames.webhookSubscriptions, ['subscriptionId']);
  await clearTable(testTableNames.webhookFailures, ['subscriptionId', 'eventId']);
  sqs.requests.length = 0;
  sqs.failSends = false;
  fast.requests.length = 0;
  fast.answer = { status: 204 };
  failing.requests.length = 0;
  failing.answer = { status: 500 };
});

const inventoryChange: InventoryChange = {
  sequence: 4,
  petId: '42',
  occurredAt: '2026-11-26T09:30:00.123Z',
  reason: 'order_placed',
  quantity: { from: 5, to: 3 },
  status: { from: 'available', to: 'available' },
  orderId: '1795685400123000001',
  keyId: '3f2a9c0d1b7e',
};

/** The bus's event as EventBridge gives it to a Lambda target. */
function busEvent(detailType: string, detail: InventoryChange | OrderChange) {
  return {
    version: '0',
    id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
    'detail-type': detailType,
    source: 'pet-store',
    account: '123456789012',
    time: '2026-11-26T09:30:00Z',
    region: 'us-east-1',
    resources: [],
    detail,
  } as EventBridgeEvent<string, InventoryChange | OrderChange>;
}

describe('fanOutWebhooks', () => {
  test('sends one delivery message per subscription that takes the event type, with the exact body', async () => {
    await subscribe('ws_inventory', `${fast.endpoint}/a`, ['inventory.changed']);
    await subscribe('ws_both', `${fast.endpoint}/b`, ['inventory.changed', 'order.changed']);
    await subscribe('ws_orders', `${fast.endpoint}/c`, ['order.changed']);

    const result = await fanOut(busEvent('inventory.changed', inventoryChange));

    expect(result).toStrictEqual({ messages: 2 });
    expect(sqs.requests.map((r) => r.operation)).toStrictEqual(['SendMessageBatch']);
    expect(sqs.requests[0]?.input.QueueUrl).toBe(sqs.queueUrl);
    const entries = (sqs.requests[0]?.input.Entries ?? []) as { MessageBody: string }[];
    const bodies = entries.map((e) => e.MessageBody).sort();
    const data = JSON.stringify(inventoryChange);
    expect(bodies).toStrictEqual([
      `{"subscriptionId":"ws_both","eventId":"inventory.42.4","type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${data}}`,
      `{"subscriptionId":"ws_inventory","eventId":"inventory.42.4","type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${data}}`,
    ]);
  });

  test('order.changed: the event id is order.<orderId>.<status>', async () => {
    await subscribe('ws_orders', `${fast.endpoint}/c`, ['order.changed']);
    const orderChange = {
      orderId: '77',
      occurredAt: '2026-11-26T09:31:00.000Z',
      status: { from: 'placed', to: 'approved' },
      order: { id: '77', petId: '42', quantity: 2, status: 'approved', complete: false },
    } as unknown as OrderChange;

    await fanOut(busEvent('order.changed', orderChange));

    expect(sqs.sentBodies()).toStrictEqual([
      {
        subscriptionId: 'ws_orders',
        eventId: 'order.77.approved',
        type: 'order.changed',
        timestamp: '2026-11-26T09:31:00.000Z',
        data: orderChange,
      },
    ]);
  });

  test('23 subscriptions: SendMessageBatch requests of 10, 10 and 3', async () => {
    for (let i = 0; i < 23; i++)
      await subscribe(`ws_${String(i).padStart(2, '0')}`, fast.endpoint, ['inventory.changed']);

    expect(await fanOut(busEvent('inventory.changed', inventoryChange))).toStrictEqual({ messages: 23 });

    expect(sqs.requests.map((r) => (r.input.Entries as unknown[]).length)).toStrictEqual([10, 10, 3]);
    expect(new Set(sqs.sentBodies().map((b) => (b as { subscriptionId: string }).subscriptionId)).size).toBe(
      23,
    );
  });

  test('no subscription takes it: nothing is sent', async () => {
    await subscribe('ws_orders', fast.endpoint, ['order.changed']);
    expect(await fanOut(busEvent('inventory.changed', inventoryChange))).toStrictEqual({ messages: 0 });
    expect(sqs.requests).toStrictEqual([]);
  });

  test('an entry SQS refuses makes the invocation fail (Lambda retries it)', async () => {
    await subscribe('ws_inventory', fast.endpoint, ['inventory.changed']);
    sqs.failSends = true;
    await expect(fanOut(busEvent('inventory.changed', inventoryChange))).rejects.toThrow(
      'SQS refused 1 of 1 delivery messages: InternalError: asked to fail',
    );
  });
});

/** The JSON lines written to stdout while `run` runs (the functions' logs and EMF metrics). */
async function jsonLinesWritten<T>(
  run: () => Promise<T>,
): Promise<{ result: T; records: Record<string, unknown>[] }> {
  const lines: string[] = [];
  const original = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(...String(typeof chunk === 'string' ? chunk : Buffer.from(chunk)).split('\n'));
    return true;
  }) as typeof process.stdout.write;
  try {
    const result = await run();
    return { result, records: lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) };
  } finally {
    process.stdout.write = original;
  }
}

/** The values of metric `name` in EMF records. */
const metricValues = (records: Record<string, unknown>[], name: string) =>
  records.flatMap((r) => r[name] ?? []);

/** A delivery message as Lambda's SQS event source mapping gives it, received `receiveCount` times. */
function sqsRecord(messageId: string, body: unknown, receiveCount: number): SQSRecord {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}-${receiveCount}`,
    body: JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: '1795685400123',
      SenderId: 'AROAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1795685400200',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:webhook-deliveries',
    awsRegion: 'us-east-1',
  };
}

const message = (subscriptionId: string) => ({
  subscriptionId,
  eventId: 'inventory.42.4',
  type: 'inventory.changed',
  timestamp: inventoryChange.occurredAt,
  data: inventoryChange,
});
const payload = JSON.stringify({
  type: 'inventory.changed',
  timestamp: inventoryChange.occurredAt,
  data: inventoryChange,
});

describe('deliverWebhooks', () => {
  test('delivers each message; a failed one is made visible after the schedule delay and reported failed; a gone subscription is dropped', async () => {
    await subscribe('ws_fast', `${fast.endpoint}/hook`, ['inventory.changed']);
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);

    const { result: response, records } = await jsonLinesWritten(() =>
      deliver({
        Records: [
          sqsRecord('m-fast', message('ws_fast'), 1),
          sqsRecord('m-failing-1', message('ws_failing'), 1),
          sqsRecord('m-failing-2', message('ws_failing'), 2),
          sqsRecord('m-gone', message('ws_removed'), 1),
        ],
      }),
    );
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([]);

    expect(response).toStrictEqual({
      batchItemFailures: [{ itemIdentifier: 'm-failing-1' }, { itemIdentifier: 'm-failing-2' }],
    });
    expect(fast.requests).toHaveLength(1);
    const [request] = fast.requests as [(typeof fast.requests)[0]];
    expect(request.body).toBe(payload);
    expect(request.headers['webhook-id']).toBe('inventory.42.4');
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toStrictEqual(
      JSON.parse(payload),
    );
    expect(failing.requests.map((r) => r.headers['webhook-id'])).toStrictEqual([
      'inventory.42.4',
      'inventory.42.4',
    ]);
    const visibility = sqs.requests
      .filter((r) => r.operation === 'ChangeMessageVisibility')
      .map((r) => r.input)
      .sort((a, b) => String(a.ReceiptHandle).localeCompare(String(b.ReceiptHandle)));
    expect(visibility).toStrictEqual([
      { QueueUrl: sqs.queueUrl, ReceiptHandle: 'receipt-m-failing-1-1', VisibilityTimeout: 5 },
      { QueueUrl: sqs.queueUrl, ReceiptHandle: 'receipt-m-failing-2-2', VisibilityTimeout: 300 },
    ]);
    expect(await scanTable(db.client, testTableNames.webhookFailures)).toStrictEqual([]);
  });

  test('after the last delay the delivery is kept in the failures table, and the message succeeds', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);
    const before = Date.now();

    const { result: response, records } = await jsonLinesWritten(() =>
      deliver({ Records: [sqsRecord('m-last', message('ws_failing'), 3)] }),
    );
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([1]);

    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(sqs.requests.filter((r) => r.operation === 'ChangeMessageVisibility')).toStrictEqual([]);
    const [failure, ...others] = await scanTable(db.client, testTableNames.webhookFailures);
    expect(others).toStrictEqual([]);
    const failedAt = failure?.failedAt?.S ?? '';
    expect(Date.parse(failedAt)).toBeGreaterThanOrEqual(before);
    expect(failedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(failure).toStrictEqual({
      subscriptionId: { S: 'ws_failing' },
      eventId: { S: 'inventory.42.4' },
      type: { S: 'inventory.changed' },
      timestamp: { S: '2026-11-26T09:30:00.123Z' },
      data: { S: JSON.stringify(inventoryChange) },
      attempts: { N: '3' },
      lastStatus: { N: '500' },
      lastError: { S: 'HTTP 500' },
      failedAt: { S: failedAt },
    });
  });

  test('a failure without a response keeps no lastStatus', async () => {
    await subscribe('ws_refused', 'http://127.0.0.1:1/hook', ['inventory.changed']);

    expect(await deliver({ Records: [sqsRecord('m-last', message('ws_refused'), 3)] })).toStrictEqual({
      batchItemFailures: [],
    });

    const [failure] = await scanTable(db.client, testTableNames.webhookFailures);
    expect(failure?.lastStatus).toBeUndefined();
    expect(failure?.lastError).toStrictEqual({ S: 'connect ECONNREFUSED 127.0.0.1:1' });
    expect(failure?.attempts).toStrictEqual({ N: '3' });
  });

  test('a slow subscriber does not delay the others: the messages are attempted in parallel', async () => {
    const slow = await startWebhookReceiver();
    try {
      slow.answer = { stallMs: 2_000 };
      await subscribe('ws_slow', slow.endpoint, ['inventory.changed']);
      await subscribe('ws_fast', fast.endpoint, ['inventory.changed']);
      const started = Date.now();
      let fastDoneAt = 0;
      const watch = setInterval(() => {
        if (fast.requests.length > 0 && fastDoneAt === 0) fastDoneAt = Date.now();
      }, 10);

      const response = await deliver({
        Records: [sqsRecord('m-slow', message('ws_slow'), 1), sqsRecord('m-fast', message('ws_fast'), 1)],
      });
      clearInterval(watch);

      expect(response).toStrictEqual({ batchItemFailures: [] });
      expect(fastDoneAt - started).toBeLessThan(1_500);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_990);
    } finally {
      await slow.close();
    }
  });

  test('a store that cannot be read fails only that message (seen again after its visibility timeout)', async () => {
    await subscribe('ws_fast', fast.endpoint, ['inventory.changed']);
    const response = await deliver({
      Records: [
        sqsRecord('m-fast', message('ws_fast'), 1),
        sqsRecord('m-bad', { ...message('x'), subscriptionId: '' }, 1),
      ],
    });
    // An empty key is refused by DynamoDB (ValidationException): that message is reported failed.
    expect(response).toStrictEqual({ batchItemFailures: [{ itemIdentifier: 'm-bad' }] });
    expect(fast.requests).toHaveLength(1);
  });

  test('without WEBHOOK_DELIVERY_QUEUE_URL the queue URL is asked of SQS by the event source ARN, once', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);
    const configured = process.env.WEBHOOK_DELIVERY_QUEUE_URL;
    delete process.env.WEBHOOK_DELIVERY_QUEUE_URL;
    try {
      const arn = 'arn:aws:sqs:us-east-1:210987654321:other-deliveries';
      const record = (id: string) => ({ ...sqsRecord(id, message('ws_failing'), 1), eventSourceARN: arn });
      expect(await deliver({ Records: [record('m-1')] })).toStrictEqual({
        batchItemFailures: [{ itemIdentifier: 'm-1' }],
      });
      expect(await deliver({ Records: [record('m-2')] })).toStrictEqual({
        batchItemFailures: [{ itemIdentifier: 'm-2' }],
      });
    } finally {
      process.env.WEBHOOK_DELIVERY_QUEUE_URL = configured;
    }
    expect(sqs.requests.map((r) => [r.operation, r.input])).toStrictEqual([
      ['GetQueueUrl', { QueueName: 'other-deliveries', QueueOwnerAWSAccountId: '210987654321' }],
      [
        'ChangeMessageVisibility',
        { QueueUrl: sqs.queueUrl, ReceiptHandle: 'receipt-m-1-1', VisibilityTimeout: 5 },
      ],
      [
        'ChangeMessageVisibility',
        { QueueUrl: sqs.queueUrl, ReceiptHandle: 'receipt-m-2-1', VisibilityTimeout: 5 },
      ],
    ]);
  });

  test('a body that is not a delivery message is dropped', async () => {
    const record = { ...sqsRecord('m-junk', {}, 1), body: 'not json' };
    expect(await deliver({ Records: [record] })).toStrictEqual({ batchItemFailures: [] });
  });
});
