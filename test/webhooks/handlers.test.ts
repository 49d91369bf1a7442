/**
 * The webhook functions invoked directly with the events Lambda gives them, against dynalite (the
 * subscription and failure tables), a real local SQS queue (test/support/local-queue.ts: what the queue holds
 * afterwards, read with ReceiveMessage) and local HTTP receivers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type AttributeValue, DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, type Message, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import type { InventoryChange, OrderChange } from '#lib/events/changes.ts';
import { type LocalQueueFixture, startLocalQueue } from '#test/support/local-queue.ts';
import { scanTable } from '#test/support/raw-tables.ts';
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

/** The queue's own visibility timeout, seconds: a received message not made visible sooner returns after it. */
const queueVisibilitySeconds = 4;

let db: TestDynamoDb;
let queue: LocalQueueFixture;
let fast: WebhookReceiver;
let failing: WebhookReceiver;
let fanOut: FanOutHandler;
let deliver: DeliverHandler;

beforeAll(async () => {
  db = await startTestDynamoDb();
  // The functions sign every request with the store's credentials (setFunctionEnvironment): the endpoint takes them too.
  queue = await startLocalQueue({
    name: 'webhook-deliveries',
    visibilityTimeout: queueVisibilitySeconds,
    credentials: db.credentials,
  });
  fast = await startWebhookReceiver();
  failing = await startWebhookReceiver();
  setFunctionEnvironment(db.endpoint, db.credentials);
  Object.assign(process.env, {
    WEBHOOK_SUBSCRIPTIONS_TABLE_NAME: testTableNames.webhookSubscriptions,
    WEBHOOK_FAILURES_TABLE_NAME: testTableNames.webhookFailures,
    WEBHOOK_DELIVERY_QUEUE_URL: queue.url,
    AWS_ENDPOINT_URL_SQS: queue.endpoint,
    WEBHOOK_RETRY_DELAYS: '1,300',
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
  await queue?.close();
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
  fast.requests.length = 0;
  fast.answer = { status: 204 };
  failing.requests.length = 0;
  failing.answer = { status: 500 };
});
afterEach(async () => {
  // Each test takes what it sent out of the queue; a message left visible is deleted (so that the next test
  // starts empty) and fails the test that left it.
  const left = await queue.receiveAll();
  await queue.remove(left);
  expect(left.map((m) => m.Body)).toStrictEqual([]);
  expect(await queue.counts()).toStrictEqual({ visible: 0, notVisible: 0, delayed: 0 });
});

/** The bodies of received messages, parsed, sorted by subscription id. */
const bodiesOf = (messages: readonly Message[]) =>
  messages
    .map((m) => JSON.parse(m.Body ?? '') as { subscriptionId: string })
    .sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId));

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
    const received = await queue.receiveAll();
    const data = JSON.stringify(inventoryChange);
    expect(received.map((m) => m.Body).sort()).toStrictEqual([
      `{"subscriptionId":"ws_both","eventId":"inventory.42.4","type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${data}}`,
      `{"subscriptionId":"ws_inventory","eventId":"inventory.42.4","type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${data}}`,
    ]);
    expect(received.map((m) => m.Attributes?.ApproximateReceiveCount)).toStrictEqual(['1', '1']);
    await queue.remove(received);
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

    const received = await queue.receiveAll();
    expect(bodiesOf(received)).toStrictEqual([
      {
        subscriptionId: 'ws_orders',
        eventId: 'order.77.approved',
        type: 'order.changed',
        timestamp: '2026-11-26T09:31:00.000Z',
        data: orderChange,
      },
    ]);
    await queue.remove(received);
  });

  test('23 subscriptions: 23 messages (SQS takes at most 10 entries a SendMessageBatch)', async () => {
    for (let i = 0; i < 23; i++)
      await subscribe(`ws_${String(i).padStart(2, '0')}`, fast.endpoint, ['inventory.changed']);

    expect(await fanOut(busEvent('inventory.changed', inventoryChange))).toStrictEqual({ messages: 23 });

    const received = await queue.receiveAll();
    expect(bodiesOf(received).map((b) => b.subscriptionId)).toStrictEqual(
      Array.from({ length: 23 }, (_, i) => `ws_${String(i).padStart(2, '0')}`),
    );
    await queue.remove(received);
  });

  test('no subscription takes it: nothing is sent', async () => {
    await subscribe('ws_orders', fast.endpoint, ['order.changed']);
    expect(await fanOut(busEvent('inventory.changed', inventoryChange))).toStrictEqual({ messages: 0 });
    expect(await queue.receiveAll()).toStrictEqual([]);
  });

  test('a send SQS refuses makes the invocation fail (Lambda retries it)', async () => {
    await subscribe('ws_inventory', fast.endpoint, ['inventory.changed']);
    const configured = process.env.WEBHOOK_DELIVERY_QUEUE_URL;
    process.env.WEBHOOK_DELIVERY_QUEUE_URL = queue.url.replace(/[^/]+$/, 'no-such-queue');
    vi.resetModules();
    try {
      const { handler } = await import('#functions/fan-out-webhooks/handler.ts');
      await expect(
        (handler as FanOutHandler)(busEvent('inventory.changed', inventoryChange)),
      ).rejects.toThrow('The specified queue does not exist.');
    } finally {
      process.env.WEBHOOK_DELIVERY_QUEUE_URL = configured;
    }
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

/**
 * The event source ARN of the synthetic records: not the queue's, so the delivery function takes the queue's URL
 * from WEBHOOK_DELIVERY_QUEUE_URL for them (it keeps one queue per ARN).
 */
const configuredArn = 'arn:aws:sqs:us-east-1:000000000000:configured-deliveries';

/**
 * A delivery message as Lambda's SQS event source mapping gives it, received `receiveCount` times, for a test
 * in which the function never touches the queue (its receipt handle is not the queue's).
 */
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
    eventSourceARN: configuredArn,
    awsRegion: 'us-east-1',
  };
}

/** A message received from the local queue as the event source mapping gives it (from `eventSourceARN`). */
function receivedRecord(m: Message, eventSourceARN = configuredArn): SQSRecord {
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
    eventSourceARN,
    awsRegion: 'us-east-1',
  };
}

/** Sends these bodies to the queue (JSON) and receives them: the messages, in the order sent, received once. */
async function sendAndReceive(bodies: readonly unknown[]): Promise<Message[]> {
  await queue.sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queue.url,
      Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: JSON.stringify(body) })),
    }),
  );
  const received = await queue.receiveAll();
  expect(received).toHaveLength(bodies.length);
  return received;
}

/** Makes a received message visible at once and receives it again (its receive count one more). */
async function receiveAgain(m: Message): Promise<Message> {
  await queue.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queue.url,
      ReceiptHandle: m.ReceiptHandle,
      VisibilityTimeout: 0,
    }),
  );
  const [again, ...others] = await queue.receiveAll();
  expect(others).toStrictEqual([]);
  expect(again?.MessageId).toBe(m.MessageId);
  return again as Message;
}

/** Message id and receive count of received messages, sorted by id. */
const idsAndCounts = (messages: readonly Message[]) =>
  messages
    .map((m) => [m.MessageId, m.Attributes?.ApproximateReceiveCount])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

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
    const [toFast, failing1, failingFirst, gone] = (await sendAndReceive([
      message('ws_fast'),
      message('ws_failing'),
      message('ws_failing'),
      message('ws_removed'),
    ])) as [Message, Message, Message, Message];
    const failing2 = await receiveAgain(failingFirst);
    expect(failing2.Attributes?.ApproximateReceiveCount).toBe('2');
    const receivedAt = Date.now();

    const { result: response, records } = await jsonLinesWritten(() =>
      deliver({
        Records: [toFast, failing1, failing2, gone].map((m) => receivedRecord(m)),
      }),
    );
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([]);

    expect(response).toStrictEqual({
      batchItemFailures: [{ itemIdentifier: failing1.MessageId }, { itemIdentifier: failing2.MessageId }],
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
    expect(await scanTable(db.client, testTableNames.webhookFailures)).toStrictEqual([]);

    // The queue: every message in flight; the first failure back after its delay (1 s), the others after the
    // queue's visibility timeout (the event source mapping deletes the successes, not the function), the second
    // failure not before its delay (300 s).
    expect(
      Date.now() - receivedAt,
      "the timing below needs a delivery done well within the queue's visibility",
    ).toBeLessThan(2_000);
    expect(await queue.receiveAll()).toStrictEqual([]);
    await sleep(1_300);
    const retried = await queue.receiveAll();
    expect(idsAndCounts(retried)).toStrictEqual([[failing1.MessageId, '2']]);
    expect(retried[0]?.Body).toBe(failing1.Body);
    await sleep(receivedAt + queueVisibilitySeconds * 1000 + 300 - Date.now());
    const returned = await queue.receiveAll();
    expect(idsAndCounts(returned)).toStrictEqual(idsAndCounts([toFast, gone]).map(([id]) => [id, '2']));
    expect(await queue.counts()).toStrictEqual({ visible: 0, notVisible: 4, delayed: 0 });
    await queue.remove([...retried, ...returned, failing2]);
  });

  test('after the last delay the delivery is kept in the failures table, and the message succeeds', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);
    const [first] = (await sendAndReceive([message('ws_failing')])) as [Message];
    const third = await receiveAgain(await receiveAgain(first));
    expect(third.Attributes?.ApproximateReceiveCount).toBe('3');
    const before = Date.now();

    const { result: response, records } = await jsonLinesWritten(() =>
      deliver({ Records: [receivedRecord(third)] }),
    );
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([1]);

    expect(response).toStrictEqual({ batchItemFailures: [] });
    // Its visibility is left as it was (in flight until the mapping deletes it): no retry delay set.
    await sleep(1_300);
    expect(await queue.receiveAll()).toStrictEqual([]);
    await queue.remove([third]);
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

  test('without WEBHOOK_DELIVERY_QUEUE_URL the queue URL is asked of SQS by the event source ARN', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);
    const [m1, m2] = (await sendAndReceive([message('ws_failing'), message('ws_failing')])) as [
      Message,
      Message,
    ];
    const configured = process.env.WEBHOOK_DELIVERY_QUEUE_URL;
    delete process.env.WEBHOOK_DELIVERY_QUEUE_URL;
    try {
      expect(await deliver({ Records: [receivedRecord(m1, queue.arn)] })).toStrictEqual({
        batchItemFailures: [{ itemIdentifier: m1.MessageId }],
      });
      expect(await deliver({ Records: [receivedRecord(m2, queue.arn)] })).toStrictEqual({
        batchItemFailures: [{ itemIdentifier: m2.MessageId }],
      });
    } finally {
      process.env.WEBHOOK_DELIVERY_QUEUE_URL = configured;
    }
    // Both made visible again after the first delay (1 s) in the queue the ARN names.
    await sleep(1_300);
    const retried = await queue.receiveAll();
    expect(idsAndCounts(retried)).toStrictEqual(idsAndCounts([m1, m2]).map(([id]) => [id, '2']));
    await queue.remove(retried);
  });

  test('a body that is not a delivery message is dropped', async () => {
    const record = { ...sqsRecord('m-junk', {}, 1), body: 'not json' };
    expect(await deliver({ Records: [record] })).toStrictEqual({ batchItemFailures: [] });
  });
});
