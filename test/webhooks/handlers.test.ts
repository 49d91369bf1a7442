/**
 * The webhook functions invoked directly with the events Lambda gives them, against dynalite (the
 * subscription and failure tables), real local SQS queues (test/support/local-queue.ts: what the delivery queue
 * holds afterwards, read with ReceiveMessage; test/support/change-events-queue.ts: the bus's rule putting each
 * change event on the queue fanOutWebhooks reads) and local HTTP receivers. Change records travel as their exact
 * JSON: ids are JSON numbers digit for digit (docs/contract.md "Identifiers"), an int64 past 2^53 included.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type AttributeValue, DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, type Message, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import type { InventoryChange, OrderChange } from '#lib/events/changes.ts';
import {
  type ChangeEventsQueue,
  sqsRecordOf,
  startChangeEventsQueue,
} from '#test/support/change-events-queue.ts';
import { type LocalQueueFixture, startLocalQueue } from '#test/support/local-queue.ts';
import { scanTable } from '#test/support/raw-tables.ts';
import {
  setFunctionEnvironment,
  startTestDynamoDb,
  type TestDynamoDb,
  testTableNames,
} from '#test/support/test-dynamodb.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

/** Both functions read an SQS event and answer its failed records (ReportBatchItemFailures). */
type QueueHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** The queue's own visibility timeout, seconds: a received message not made visible sooner returns after it. */
const queueVisibilitySeconds = 4;

let db: TestDynamoDb;
let queue: LocalQueueFixture;
let changeEvents: ChangeEventsQueue;
let fast: WebhookReceiver;
let failing: WebhookReceiver;
let fanOut: QueueHandler;
let deliver: QueueHandler;

beforeAll(async () => {
  db = await startTestDynamoDb();
  // The functions sign every request with the store's credentials (setFunctionEnvironment): the endpoint takes them too.
  queue = await startLocalQueue({
    name: 'webhook-deliveries',
    visibilityTimeout: queueVisibilitySeconds,
    credentials: db.credentials,
  });
  changeEvents = await startChangeEventsQueue(db.credentials);
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
    // Warnings on (the test environment silences logs), so that a dropped or failed record's line is written.
    POWERTOOLS_LOG_LEVEL: 'WARN',
  });
  fanOut = (await import('#functions/fan-out-webhooks/handler.ts')).handler;
  deliver = (await import('#functions/deliver-webhooks/handler.ts')).handler;
});
afterAll(async () => {
  await fast?.close();
  await failing?.close();
  await changeEvents?.close();
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

/** The subscription ids of received delivery messages, sorted. */
const subscriptionIdsOf = (messages: readonly Message[]) =>
  messages.map((m) => (JSON.parse(m.Body ?? '') as { subscriptionId: string }).subscriptionId).sort();

/** An order placed for a pet: petId the int64 minimum, orderId past 2^53 (neither survives a JSON.parse number). */
const inventoryChange: InventoryChange = {
  sequence: 4,
  petId: '-9223372036854775808',
  occurredAt: '2026-11-26T09:30:00.123Z',
  reason: 'order_placed',
  quantity: { from: 5, to: 3 },
  status: { from: 'available', to: 'available' },
  orderId: '1795685400123000001',
  keyId: '3f2a9c0d1b7e',
};
/** Its exact JSON text: the ids JSON numbers, digit for digit. */
const inventoryJson =
  '{"sequence":4,"petId":-9223372036854775808,"occurredAt":"2026-11-26T09:30:00.123Z","reason":"order_placed","quantity":{"from":5,"to":3},"status":{"from":"available","to":"available"},"orderId":1795685400123000001,"keyId":"3f2a9c0d1b7e"}';
const inventoryEventId = 'inventory.-9223372036854775808.4';

/** The order's approval: its id past 2^53, its pet the int64 maximum. */
const orderChange: OrderChange = {
  orderId: '1795685400123000001',
  occurredAt: '2026-11-26T09:31:00.000Z',
  status: { from: 'placed', to: 'approved' },
  order: {
    id: '1795685400123000001',
    petId: '9223372036854775807',
    quantity: 2,
    shipDate: '2026-11-28T12:00:00.000Z',
    status: 'approved',
    complete: false,
  },
  keyId: '3f2a9c0d1b7e',
};
const orderJson =
  '{"orderId":1795685400123000001,"occurredAt":"2026-11-26T09:31:00.000Z","status":{"from":"placed","to":"approved"},"order":{"id":1795685400123000001,"petId":9223372036854775807,"quantity":2,"shipDate":"2026-11-28T12:00:00.000Z","status":"approved","complete":false},"keyId":"3f2a9c0d1b7e"}';

/** The exact delivery message body the fan-out sends for `subscriptionId`. */
const inventoryMessage = (subscriptionId: string) =>
  `{"subscriptionId":"${subscriptionId}","eventId":"${inventoryEventId}","type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${inventoryJson}}`;

/** The warnings a handler logged (Powertools JSON lines) with this message. */
const warnings = (records: Record<string, unknown>[], message: string) =>
  records.filter((r) => r.level === 'WARN' && r.message === message);

describe('fanOutWebhooks', () => {
  test('sends one delivery message per subscription that takes the event type, with the exact body', async () => {
    await subscribe('ws_inventory', `${fast.endpoint}/a`, ['inventory.changed']);
    await subscribe('ws_both', `${fast.endpoint}/b`, ['inventory.changed', 'order.changed']);
    await subscribe('ws_orders', `${fast.endpoint}/c`, ['order.changed']);
    const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);
    // The bus put the event envelope on the queue with the detail's text as published.
    expect(records.map((r) => r.body)).toStrictEqual([
      expect.stringMatching(
        /^\{"version":"0","id":"[0-9a-f-]{36}","detail-type":"inventory\.changed","source":"pet-store",/,
      ),
    ]);
    expect(records.map((r) => r.body.slice(r.body.indexOf(',"detail":')))).toStrictEqual([
      `,"detail":${inventoryJson}}`,
    ]);

    expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

    const received = await queue.receiveAll();
    expect(received.map((m) => m.Body).sort()).toStrictEqual([
      inventoryMessage('ws_both'),
      inventoryMessage('ws_inventory'),
    ]);
    expect(received.map((m) => m.Attributes?.ApproximateReceiveCount)).toStrictEqual(['1', '1']);
    await queue.remove(received);
  });

  test('order.changed: the event id is order.<orderId>.<status>, the order ids exact', async () => {
    await subscribe('ws_orders', `${fast.endpoint}/c`, ['order.changed']);
    await subscribe('ws_inventory', `${fast.endpoint}/a`, ['inventory.changed']);

    const records = await changeEvents.publish([{ type: 'order.changed', data: orderChange }]);
    expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

    const received = await queue.receiveAll();
    expect(received.map((m) => m.Body)).toStrictEqual([
      `{"subscriptionId":"ws_orders","eventId":"order.1795685400123000001.approved","type":"order.changed","timestamp":"2026-11-26T09:31:00.000Z","data":${orderJson}}`,
    ]);
    await queue.remove(received);
  });

  test('a batch of events: each fanned out to its own subscriptions', async () => {
    await subscribe('ws_orders', `${fast.endpoint}/c`, ['order.changed']);
    await subscribe('ws_inventory', `${fast.endpoint}/a`, ['inventory.changed']);

    const records = await changeEvents.publish([
      { type: 'inventory.changed', data: inventoryChange },
      { type: 'order.changed', data: orderChange },
    ]);
    expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

    const received = await queue.receiveAll();
    expect(received.map((m) => m.Body).sort()).toStrictEqual([
      inventoryMessage('ws_inventory'),
      `{"subscriptionId":"ws_orders","eventId":"order.1795685400123000001.approved","type":"order.changed","timestamp":"2026-11-26T09:31:00.000Z","data":${orderJson}}`,
    ]);
    await queue.remove(received);
  });

  test('23 subscriptions: 23 messages (SQS takes at most 10 entries a SendMessageBatch)', async () => {
    for (let i = 0; i < 23; i++)
      await subscribe(`ws_${String(i).padStart(2, '0')}`, fast.endpoint, ['inventory.changed']);
    const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);

    expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

    const received = await queue.receiveAll();
    expect(subscriptionIdsOf(received)).toStrictEqual(
      Array.from({ length: 23 }, (_, i) => `ws_${String(i).padStart(2, '0')}`),
    );
    expect(new Set(received.map((m) => m.Body?.replace(/"ws_\d\d"/, '"ws_?"')))).toStrictEqual(
      new Set([inventoryMessage('ws_?')]),
    );
    await queue.remove(received);
  });

  test('no subscription takes it: nothing is sent', async () => {
    await subscribe('ws_orders', fast.endpoint, ['order.changed']);
    const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);
    expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });
    expect(await queue.receiveAll()).toStrictEqual([]);
  });

  test('a record whose sends SQS refuses is reported failed; the other record of the batch succeeds', async () => {
    await subscribe('ws_inventory', fast.endpoint, ['inventory.changed']);
    const [inventoryRecord, orderRecord] = (await changeEvents.publish([
      { type: 'inventory.changed', data: inventoryChange },
      { type: 'order.changed', data: orderChange },
    ])) as [SQSRecord, SQSRecord];
    const configured = process.env.WEBHOOK_DELIVERY_QUEUE_URL;
    process.env.WEBHOOK_DELIVERY_QUEUE_URL = queue.url.replace(/[^/]+$/, 'no-such-queue');
    vi.resetModules();
    try {
      const { handler } = await import('#functions/fan-out-webhooks/handler.ts');
      const { result, records } = await jsonLinesWritten(() =>
        handler({ Records: [inventoryRecord, orderRecord] }),
      );
      // The inventory event has a subscriber: its send to the missing queue fails. No subscription takes the
      // order event: nothing to send, it succeeds (the mapping deletes it).
      expect(result).toStrictEqual({ batchItemFailures: [{ itemIdentifier: inventoryRecord.messageId }] });
      expect(
        warnings(records, 'fan-out failed, the event is seen again after its visibility timeout'),
      ).toMatchObject([
        {
          messageId: inventoryRecord.messageId,
          error: expect.stringContaining('The specified queue does not exist.'),
        },
      ]);
    } finally {
      process.env.WEBHOOK_DELIVERY_QUEUE_URL = configured;
    }
  });

  test('a body that is no change event is logged and dropped; the change event beside it is fanned out', async () => {
    await subscribe('ws_inventory', `${fast.endpoint}/a`, ['inventory.changed', 'order.changed']);
    const notJson = await changeEvents.sendRaw('not json');
    const otherType = await changeEvents.sendRaw(
      JSON.stringify({
        version: '0',
        'detail-type': 'pet.adopted',
        source: 'pet-store',
        detail: { petId: 1 },
      }),
    );
    const noDetail = await changeEvents.sendRaw(
      JSON.stringify({ version: '0', 'detail-type': 'inventory.changed', source: 'pet-store' }),
    );
    const [change] = (await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }])) as [
      SQSRecord,
    ];

    const { result, records } = await jsonLinesWritten(() =>
      fanOut({ Records: [notJson, otherType, change, noDetail] }),
    );

    expect(result).toStrictEqual({ batchItemFailures: [] });
    expect(
      warnings(records, 'ignored a message that is no change event').map((r) => r.messageId),
    ).toStrictEqual([notJson.messageId, otherType.messageId, noDetail.messageId]);
    const received = await queue.receiveAll();
    expect(received.map((m) => m.Body)).toStrictEqual([inventoryMessage('ws_inventory')]);
    await queue.remove(received);
  });
});

/**
 * The JSON lines written to stdout and stderr while `run` runs (the functions' logs, warnings going to stderr
 * through console.warn, and EMF metrics).
 */
async function jsonLinesWritten<T>(
  run: () => Promise<T>,
): Promise<{ result: T; records: Record<string, unknown>[] }> {
  const lines: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      lines.push(...String(typeof chunk === 'string' ? chunk : Buffer.from(chunk)).split('\n'));
      return true;
    }) as typeof stream.write;
  }
  try {
    const result = await run();
    return { result, records: lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) };
  } finally {
    streams.forEach((stream, index) => {
      stream.write = originals[index] as typeof stream.write;
    });
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
function sqsRecord(messageId: string, body: string, receiveCount: number): SQSRecord {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}-${receiveCount}`,
    body,
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
const receivedRecord = (m: Message, eventSourceARN = configuredArn): SQSRecord =>
  sqsRecordOf(m, eventSourceARN);

/** Sends these bodies to the queue and receives them: the messages, in the order sent, received once. */
async function sendAndReceive(bodies: readonly string[]): Promise<Message[]> {
  await queue.sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queue.url,
      Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
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

/** The exact webhook payload of {@link inventoryMessage}: `{"type","timestamp","data"}`, ids digit for digit. */
const payload = `{"type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${inventoryJson}}`;

describe('deliverWebhooks', () => {
  test('delivers each message; a failed one is made visible after the schedule delay and reported failed; a gone subscription is dropped', async () => {
    await subscribe('ws_fast', `${fast.endpoint}/hook`, ['inventory.changed']);
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);
    const [toFast, failing1, failingFirst, gone] = (await sendAndReceive([
      inventoryMessage('ws_fast'),
      inventoryMessage('ws_failing'),
      inventoryMessage('ws_failing'),
      inventoryMessage('ws_removed'),
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
    expect(request.headers['webhook-id']).toBe(inventoryEventId);
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toStrictEqual(
      JSON.parse(payload),
    );
    expect(failing.requests.map((r) => r.headers['webhook-id'])).toStrictEqual([
      inventoryEventId,
      inventoryEventId,
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
    const [first] = (await sendAndReceive([inventoryMessage('ws_failing')])) as [Message];
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
      eventId: { S: inventoryEventId },
      type: { S: 'inventory.changed' },
      timestamp: { S: '2026-11-26T09:30:00.123Z' },
      data: { S: inventoryJson },
      attempts: { N: '3' },
      lastStatus: { N: '500' },
      lastError: { S: 'HTTP 500' },
      failedAt: { S: failedAt },
    });
  });

  test('a failure without a response keeps no lastStatus', async () => {
    await subscribe('ws_refused', 'http://127.0.0.1:1/hook', ['inventory.changed']);

    expect(
      await deliver({ Records: [sqsRecord('m-last', inventoryMessage('ws_refused'), 3)] }),
    ).toStrictEqual({
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
        Records: [
          sqsRecord('m-slow', inventoryMessage('ws_slow'), 1),
          sqsRecord('m-fast', inventoryMessage('ws_fast'), 1),
        ],
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
        sqsRecord('m-fast', inventoryMessage('ws_fast'), 1),
        sqsRecord('m-bad', inventoryMessage(''), 1),
      ],
    });
    // An empty key is refused by DynamoDB (ValidationException): that message is reported failed.
    expect(response).toStrictEqual({ batchItemFailures: [{ itemIdentifier: 'm-bad' }] });
    expect(fast.requests).toHaveLength(1);
  });

  test('without WEBHOOK_DELIVERY_QUEUE_URL the queue URL is asked of SQS by the event source ARN', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);
    const [m1, m2] = (await sendAndReceive([
      inventoryMessage('ws_failing'),
      inventoryMessage('ws_failing'),
    ])) as [Message, Message];
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
    const record = sqsRecord('m-junk', 'not json', 1);
    expect(await deliver({ Records: [record] })).toStrictEqual({ batchItemFailures: [] });
  });
});
