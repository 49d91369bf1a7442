/**
 * The webhook functions invoked directly with the events Lambda gives them, against dynalite (the
 * endpoint and failure tables), real local SQS queues (test/support/local-queue.ts: what the delivery queue
 * holds afterwards, read with ReceiveMessage; test/support/change-events-queue.ts: the bus's rule putting each
 * change event on the queue fanOutWebhooks reads) and local HTTP receivers. Change records travel as their exact
 * JSON: ids are JSON numbers digit for digit (docs/contract.md "Identifiers"), an int64 past 2^53 included.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type AttributeValue, DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, type Message, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { dynamoDbClient, startTestStore, type TestStore } from '@pet-store/local-aws/testing';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import type { OrderChange } from '#lib/events/changes.ts';
import { endpointRoutes } from '#lib/webhooks/endpoint-store.ts';
import {
  type ChangeEventsQueue,
  sqsRecordOf,
  startChangeEventsQueue,
} from '#test/support/change-events-queue.ts';
import { stockChange } from '#test/support/change-fixtures.ts';
import { type LocalQueueFixture, startLocalQueue } from '#test/support/local-queue.ts';
import { failureRecord, scanTable } from '#test/support/raw-tables.ts';
import { serviceTables, setFunctionEnvironment, testTableNames } from '#test/support/test-dynamodb.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

/** Both functions read an SQS event and answer its failed records (ReportBatchItemFailures). */
type QueueHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

/** The queue's own visibility timeout, seconds: a received message not made visible sooner returns after it. */
const queueVisibilitySeconds = 4;

let db: TestStore;
/** The fast lane (the delivery queue) and the slow lane, on one local SQS endpoint. */
let queue: LocalQueueFixture;
let slowLane: LocalQueueFixture;
let changeEvents: ChangeEventsQueue;
let fast: WebhookReceiver;
let failing: WebhookReceiver;
let fanOut: QueueHandler;
let deliver: QueueHandler;

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
  // The functions sign every request with the store's credentials (setFunctionEnvironment): the endpoint takes them too.
  queue = await startLocalQueue({
    name: 'webhook-deliveries',
    sibling: 'webhook-slow-lane',
    visibilityTimeout: queueVisibilitySeconds,
    credentials: db.credentials,
  });
  slowLane = queue.sibling as LocalQueueFixture;
  changeEvents = await startChangeEventsQueue(db.credentials);
  fast = await startWebhookReceiver();
  failing = await startWebhookReceiver();
  setFunctionEnvironment(db.endpoint, db.credentials);
  Object.assign(process.env, {
    WEBHOOK_ENDPOINTS_TABLE_NAME: testTableNames.webhookEndpoints,
    WEBHOOK_FAILURES_TABLE_NAME: testTableNames.webhookFailures,
    WEBHOOK_ATTEMPTS_TABLE_NAME: testTableNames.webhookAttempts,
    WEBHOOK_DELIVERY_QUEUE_URL: queue.url,
    WEBHOOK_SLOW_LANE_QUEUE_URL: slowLane.url,
    WEBHOOK_SLOW_LANE_QUEUE_ARN: slowLane.arn,
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

/**
 * Stores an endpoint as the webhook tool does, with these extra attributes (a state other than `enabled`, a
 * `failingSince`); without a state, as the tool stored them before states existed.
 */
async function subscribe(
  endpointId: string,
  url: string,
  events: string[],
  extra: Record<string, AttributeValue> = {},
) {
  await db.client.send(
    new PutItemCommand({
      TableName: testTableNames.webhookEndpoints,
      Item: {
        subscriptionId: { S: endpointId },
        url: { S: url },
        events: { L: events.map((e) => ({ S: e })) },
        secret: { S: secret },
        createdAt: { S: '2026-11-26T08:00:00.000Z' },
        ...extra,
      },
    }),
  );
}

/** The stored endpoint `endpointId` (raw attribute values), or undefined. */
async function storedEndpoint(endpointId: string) {
  const items = await scanTable(db.client, testTableNames.webhookEndpoints);
  return items.find((item) => item.subscriptionId?.S === endpointId);
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
  await clearTable(testTableNames.webhookEndpoints, ['subscriptionId']);
  await clearTable(testTableNames.webhookFailures, ['subscriptionId', 'eventId']);
  fast.requests.length = 0;
  fast.answer = { status: 204 };
  failing.requests.length = 0;
  failing.answer = { status: 500 };
});
afterEach(async () => {
  // Each test takes what it sent out of the queues; a message left visible is deleted (so that the next test
  // starts empty) and fails the test that left it.
  for (const lane of [queue, slowLane]) {
    const left = await lane.receiveAll();
    await lane.remove(left);
    expect(left.map((m) => m.Body)).toStrictEqual([]);
    expect(await lane.counts()).toStrictEqual({ visible: 0, notVisible: 0, delayed: 0 });
  }
});

/** The endpoint ids of received delivery messages, sorted. */
const endpointIdsOf = (messages: readonly Message[]) =>
  messages.map((m) => (JSON.parse(m.Body ?? '') as { subscriptionId: string }).subscriptionId).sort();

/** An order placed for a pet: petId the int64 minimum, orderId past 2^53 (neither survives a JSON.parse number). */
const inventoryChange = stockChange({
  sequence: 4,
  petId: '-9223372036854775808',
  reason: 'order_placed',
  quantity: { from: 5, to: 3 },
  orderId: '1795685400123000001',
});
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

/** The exact delivery message body the fan-out sends for `endpointId`. */
const inventoryMessage = (endpointId: string) =>
  `{"subscriptionId":"${endpointId}","eventId":"${inventoryEventId}","type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${inventoryJson}}`;

/** The warnings a handler logged (Powertools JSON lines) with this message. */
const warnings = (records: Record<string, unknown>[], message: string) =>
  records.filter((r) => r.level === 'WARN' && r.message === message);

describe('fanOutWebhooks', () => {
  test('sends one delivery message per endpoint that takes the event type, with the exact body', async () => {
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

  test('a batch of events: each fanned out to its own endpoints', async () => {
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

  test('23 endpoints: 23 messages (SQS takes at most 10 entries a SendMessageBatch)', async () => {
    for (let i = 0; i < 23; i++)
      await subscribe(`ws_${String(i).padStart(2, '0')}`, fast.endpoint, ['inventory.changed']);
    const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);

    expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

    const received = await queue.receiveAll();
    expect(endpointIdsOf(received)).toStrictEqual(
      Array.from({ length: 23 }, (_, i) => `ws_${String(i).padStart(2, '0')}`),
    );
    expect(new Set(received.map((m) => m.Body?.replace(/"ws_\d\d"/, '"ws_?"')))).toStrictEqual(
      new Set([inventoryMessage('ws_?')]),
    );
    await queue.remove(received);
  });

  test('each endpoint in the lane of its state: enabled (or stored before states) to the fast lane, isolated and disabled to the slow lane', async () => {
    await subscribe('ws_old', fast.endpoint, ['inventory.changed']);
    await subscribe('ws_enabled', fast.endpoint, ['inventory.changed'], { state: { S: 'enabled' } });
    await subscribe('ws_isolated', fast.endpoint, ['inventory.changed'], { state: { S: 'isolated' } });
    await subscribe('ws_disabled', fast.endpoint, ['inventory.changed'], { state: { S: 'disabled' } });
    const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);

    expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

    const fastLane = await queue.receiveAll();
    expect(fastLane.map((m) => m.Body).sort()).toStrictEqual([
      inventoryMessage('ws_enabled'),
      inventoryMessage('ws_old'),
    ]);
    const slow = await slowLane.receiveAll();
    expect(slow.map((m) => m.Body).sort()).toStrictEqual([
      inventoryMessage('ws_disabled'),
      inventoryMessage('ws_isolated'),
    ]);
    await queue.remove(fastLane);
    await slowLane.remove(slow);
  });

  describe('the check of an API key\'s endpoints (docs/contract.md "History and events": least privilege)', () => {
    /** Stores an API key record of the chain `chain` (its first key id) with these attributes; `digest` its own. */
    async function storeKey(digest: string, extra: Record<string, AttributeValue>) {
      await db.client.send(
        new PutItemCommand({
          TableName: testTableNames.apiKeys,
          Item: {
            keyDigest: { S: digest },
            name: { S: 'shop' },
            createdAt: { S: '2026-11-01T00:00:00.000Z' },
            ...extra,
          },
        }),
      );
    }
    const scopesOf = (...names: string[]) => ({ scopes: { L: names.map((name) => ({ S: name })) } });
    /** A digest whose key id (its first 12 hex digits) is `id`. */
    const digestOf = (id: string) => id.padEnd(64, '0');
    const past = { S: '2026-01-01T00:00:00.000Z' };

    beforeEach(() => clearTable(testTableNames.apiKeys, ['keyDigest']));

    test.each([
      ['revoked', { revokedAt: past, ...scopesOf('inventory:read', 'webhooks:manage') }, 'key_revoked'],
      ['expired', { expiresAt: past, ...scopesOf('inventory:read', 'webhooks:manage') }, 'key_expired'],
      ['without inventory:read any more', scopesOf('orders:read', 'webhooks:manage'), 'scope_missing'],
    ])(
      "a key %s: its endpoint gets nothing and is disabled with the reason; the tool's endpoint and a live key's endpoint get the event",
      async (_case, key, reason) => {
        await storeKey(digestOf('aaaaaaaaaaaa'), key);
        await storeKey(digestOf('bbbbbbbbbbbb'), scopesOf('inventory:read', 'webhooks:manage'));
        const owned = (owner: string) => ({ ownerKeyId: { S: owner }, state: { S: 'enabled' } });
        await subscribe('ws_refused', `${fast.endpoint}/a`, ['inventory.changed'], owned('aaaaaaaaaaaa'));
        await subscribe('ws_live', `${fast.endpoint}/b`, ['inventory.changed'], owned('bbbbbbbbbbbb'));
        await subscribe('ws_tool', `${fast.endpoint}/c`, ['inventory.changed']);

        const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);
        expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

        const received = await queue.receiveAll();
        expect(endpointIdsOf(received)).toStrictEqual(['ws_live', 'ws_tool']);
        await queue.remove(received);
        const refused = await storedEndpoint('ws_refused');
        expect([refused?.state, refused?.disabledReason]).toStrictEqual([{ S: 'disabled' }, { S: reason }]);
        expect(Date.parse(refused?.disabledAt?.S ?? '')).toBeGreaterThan(Date.now() - 60_000);
        expect((await storedEndpoint('ws_live'))?.state).toStrictEqual({ S: 'enabled' });
      },
    );

    test('a rotated chain: the live key of the chain (firstKeyId) keeps the endpoints of its first, revoked key', async () => {
      await storeKey(digestOf('cccccccccccc'), {
        revokedAt: past,
        ...scopesOf('inventory:read', 'webhooks:manage'),
      });
      await storeKey(digestOf('dddddddddddd'), {
        firstKeyId: { S: 'cccccccccccc' },
        createdAt: { S: '2026-11-02T00:00:00.000Z' },
        ...scopesOf('inventory:read', 'webhooks:manage'),
      });
      await subscribe('ws_chain', `${fast.endpoint}/a`, ['inventory.changed'], {
        ownerKeyId: { S: 'cccccccccccc' },
      });

      const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);
      expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

      const received = await queue.receiveAll();
      expect(endpointIdsOf(received)).toStrictEqual(['ws_chain']);
      await queue.remove(received);
    });

    test('a key stored before scopes existed holds every scope; an owner with no key on record counts as revoked', async () => {
      await storeKey(digestOf('eeeeeeeeeeee'), {});
      await subscribe('ws_legacy', `${fast.endpoint}/a`, ['inventory.changed', 'order.changed'], {
        ownerKeyId: { S: 'eeeeeeeeeeee' },
      });
      await subscribe('ws_orphan', `${fast.endpoint}/b`, ['inventory.changed'], {
        ownerKeyId: { S: 'ffffffffffff' },
      });

      const records = await changeEvents.publish([{ type: 'inventory.changed', data: inventoryChange }]);
      expect(await fanOut({ Records: records })).toStrictEqual({ batchItemFailures: [] });

      const received = await queue.receiveAll();
      expect(endpointIdsOf(received)).toStrictEqual(['ws_legacy']);
      await queue.remove(received);
      expect((await storedEndpoint('ws_orphan'))?.disabledReason).toStrictEqual({ S: 'key_revoked' });
    });
  });

  test('reads the endpoints without their signing secrets: a Scan projecting the endpoint id (stored as subscriptionId), events, state, owner and creation time', async () => {
    await subscribe('ws_inventory', fast.endpoint, ['inventory.changed'], { state: { S: 'isolated' } });
    // The requests the fan-out's read sends, as they leave the client (recorded, not altered).
    const client = dynamoDbClient(db.endpoint, db.credentials);
    const sent: Record<string, unknown>[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        const input = Object.entries(args.input as Record<string, unknown>);
        sent.push(Object.fromEntries(input.filter(([, value]) => value !== undefined)));
        return next(args);
      },
      { step: 'initialize' },
    );
    try {
      const routes = await endpointRoutes(client, testTableNames.webhookEndpoints).list();
      expect(routes).toStrictEqual([
        {
          endpointId: 'ws_inventory',
          events: ['inventory.changed'],
          state: 'isolated',
          createdAt: '2026-11-26T08:00:00.000Z',
        },
      ]);
      expect(sent).toStrictEqual([
        {
          TableName: testTableNames.webhookEndpoints,
          ProjectionExpression: '#id, #events, #state, ownerKeyId, createdAt',
          ExpressionAttributeNames: { '#id': 'subscriptionId', '#events': 'events', '#state': 'state' },
        },
      ]);
    } finally {
      client.destroy();
    }
  });

  test('no endpoint takes it: nothing is sent', async () => {
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
      // The inventory event has a subscriber: its send to the missing queue fails. No endpoint takes the
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

/** The fast lane's event source ARN in synthetic records: any ARN but the slow lane's. */
const fastLaneArn = 'arn:aws:sqs:us-east-1:000000000000:webhook-deliveries';

/**
 * A delivery message as Lambda's SQS event source mapping gives it, received `receiveCount` times from the slow
 * lane (or the lane of `eventSourceARN`), for a test in which the function never touches the queue (its receipt
 * handle is not the queue's).
 */
function sqsRecord(
  messageId: string,
  body: string,
  receiveCount: number,
  eventSourceARN?: string,
): SQSRecord {
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
    eventSourceARN: eventSourceARN ?? slowLane.arn,
    awsRegion: 'us-east-1',
  };
}

/** A message received from `lane` as the event source mapping gives it. */
const receivedRecord = (m: Message, lane: LocalQueueFixture): SQSRecord =>
  sqsRecordOf(m, lane === slowLane ? slowLane.arn : fastLaneArn);

/** Sends these bodies to `lane` and receives them: the messages, in the order sent, received once. */
async function sendAndReceive(lane: LocalQueueFixture, bodies: readonly string[]): Promise<Message[]> {
  await lane.sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: lane.url,
      Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
    }),
  );
  const received = await lane.receiveAll();
  expect(received).toHaveLength(bodies.length);
  return received;
}

/** Makes a message received from the slow lane visible at once and receives it again (its receive count one more). */
async function receiveAgain(m: Message): Promise<Message> {
  await slowLane.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: slowLane.url,
      ReceiptHandle: m.ReceiptHandle,
      VisibilityTimeout: 0,
    }),
  );
  const [again, ...others] = await slowLane.receiveAll();
  expect(others).toStrictEqual([]);
  expect(again?.MessageId).toBe(m.MessageId);
  return again as Message;
}

/** Message id and receive count of received messages, sorted by id. */
/**
 * The slow lane's messages once one is back (received now; a retry delay of the schedule's first step, 1 s,
 * has passed), polled every 100 ms for at most 10 s.
 */
const backInQueue = () =>
  vi.waitFor(
    async () => {
      const messages = await slowLane.receiveAll();
      expect(messages.length, 'a message back in the slow lane').toBeGreaterThan(0);
      return messages;
    },
    { timeout: 10_000, interval: 100 },
  );

const idsAndCounts = (messages: readonly Message[]) =>
  messages
    .map((m) => [m.MessageId, m.Attributes?.ApproximateReceiveCount])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/** The exact webhook payload of {@link inventoryMessage}: `{"type","timestamp","data"}`, ids digit for digit. */
const payload = `{"type":"inventory.changed","timestamp":"2026-11-26T09:30:00.123Z","data":${inventoryJson}}`;

/** {@link inventoryMessage} moved to the slow lane after `n` failed attempts. */
const movedMessage = (endpointId: string, n: number) =>
  inventoryMessage(endpointId).replace(
    '"timestamp":"2026-11-26T09:30:00.123Z"',
    `"timestamp":"2026-11-26T09:30:00.123Z","priorAttempts":${n}`,
  );

/** An RFC 3339 time `ms` milliseconds before now. */
const msAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

const day = 86_400_000;

describe('deliverWebhooks, the fast lane', () => {
  test('delivers a first attempt; a failed one moves to the slow lane after the first delay and isolates its endpoint; a gone endpoint is dropped', async () => {
    await subscribe('ws_fast', `${fast.endpoint}/hook`, ['inventory.changed']);
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed']);
    const messages = await sendAndReceive(queue, [
      inventoryMessage('ws_fast'),
      inventoryMessage('ws_failing'),
      inventoryMessage('ws_removed'),
    ]);
    const before = Date.now();

    const { result: response, records } = await jsonLinesWritten(() =>
      deliver({ Records: messages.map((m) => receivedRecord(m, queue)) }),
    );

    // Every message is done with in the fast lane (the mapping deletes them all).
    expect(response).toStrictEqual({ batchItemFailures: [] });
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([]);
    expect(fast.requests.map((r) => r.body)).toStrictEqual([payload]);
    const [request] = fast.requests as [(typeof fast.requests)[0]];
    expect(request.headers['webhook-id']).toBe(inventoryEventId);
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toStrictEqual(
      JSON.parse(payload),
    );
    expect(failing.requests).toHaveLength(1);
    // The failed one waits in the slow lane for the first delay (1 s), its first attempt counted.
    expect(await slowLane.counts()).toStrictEqual({ visible: 0, notVisible: 0, delayed: 1 });
    const [moved, ...others] = await backInQueue();
    expect(others).toStrictEqual([]);
    expect(moved?.Body).toBe(movedMessage('ws_failing', 1));
    await slowLane.remove([moved as Message]);
    const failingSince = (await storedEndpoint('ws_failing'))?.failingSince?.S ?? '';
    expect(Date.parse(failingSince)).toBeGreaterThanOrEqual(before);
    expect(await storedEndpoint('ws_failing')).toMatchObject({
      state: { S: 'isolated' },
      failingSince: { S: failingSince },
    });
    // The healthy endpoint is left as it was (no write for a delivery of an enabled one).
    expect((await storedEndpoint('ws_fast'))?.state).toBeUndefined();
    expect(await scanTable(db.client, testTableNames.webhookFailures)).toStrictEqual([]);
    // The event source mapping deletes the fast lane's messages (the function does not).
    await queue.remove(messages);
  });

  test('an attempt still unanswered at 2 s is cut, not failed: it moves to the slow lane at once, and the endpoint is isolated', async () => {
    const hanging = await startWebhookReceiver();
    try {
      hanging.answer = { stallMs: 30_000 };
      await subscribe('ws_hanging', hanging.endpoint, ['inventory.changed']);
      await subscribe('ws_fast', fast.endpoint, ['inventory.changed']);
      const messages = await sendAndReceive(queue, [
        inventoryMessage('ws_hanging'),
        inventoryMessage('ws_fast'),
      ]);
      const started = Date.now();

      expect(await deliver({ Records: messages.map((m) => receivedRecord(m, queue)) })).toStrictEqual({
        batchItemFailures: [],
      });

      // The batch ended at the fast lane's limit, not at the 10 s of a full attempt.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_990);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(fast.requests).toHaveLength(1);
      expect(hanging.requests).toHaveLength(1);
      const [moved, ...others] = await slowLane.receiveAll();
      expect(others).toStrictEqual([]);
      expect(moved?.Body).toBe(inventoryMessage('ws_hanging'));
      await slowLane.remove([moved as Message]);
      const stored = await storedEndpoint('ws_hanging');
      expect(stored?.state).toStrictEqual({ S: 'isolated' });
      expect(stored?.failingSince).toBeUndefined();

      // The next delivery of the isolated endpoint is moved without an attempt.
      const [next] = await sendAndReceive(queue, [inventoryMessage('ws_hanging')]);
      expect(await deliver({ Records: [receivedRecord(next as Message, queue)] })).toStrictEqual({
        batchItemFailures: [],
      });
      expect(hanging.requests).toHaveLength(1);
      const [movedNext] = await slowLane.receiveAll();
      expect(movedNext?.Body).toBe(inventoryMessage('ws_hanging'));
      await slowLane.remove([movedNext as Message]);
      await queue.remove([...messages, next as Message]);
    } finally {
      await hanging.close();
    }
  });
});

describe('deliverWebhooks, the slow lane', () => {
  test('a failed attempt is made visible after the schedule delay and reported failed; attempts count priorAttempts', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed'], {
      state: { S: 'isolated' },
    });
    const [failing1, movedFirst] = (await sendAndReceive(slowLane, [
      inventoryMessage('ws_failing'),
      movedMessage('ws_failing', 1),
    ])) as [Message, Message];
    const receivedAt = Date.now();

    const { result: response, records } = await jsonLinesWritten(() =>
      deliver({ Records: [failing1, movedFirst].map((m) => receivedRecord(m, slowLane)) }),
    );
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([]);
    expect(response).toStrictEqual({
      batchItemFailures: [{ itemIdentifier: failing1.MessageId }, { itemIdentifier: movedFirst.MessageId }],
    });
    expect(failing.requests.map((r) => r.headers['webhook-id'])).toStrictEqual([
      inventoryEventId,
      inventoryEventId,
    ]);
    expect(await scanTable(db.client, testTableNames.webhookFailures)).toStrictEqual([]);

    // Attempt 1 back after the first delay (1 s); the moved one's attempt 2 not before the second (300 s).
    expect(Date.now() - receivedAt, 'the timing below needs a delivery done well within 1 s').toBeLessThan(
      1_000,
    );
    expect(await slowLane.receiveAll()).toStrictEqual([]);
    const retried = await backInQueue();
    expect(idsAndCounts(retried)).toStrictEqual([[failing1.MessageId, '2']]);
    expect(await slowLane.counts()).toStrictEqual({ visible: 0, notVisible: 2, delayed: 0 });
    await slowLane.remove([...retried, movedFirst]);
  });

  test('a message waiting for its notBefore is sent on unattempted, hidden until then; its attempt then counts priorAttempts', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed'], {
      state: { S: 'isolated' },
    });
    const notBefore = new Date(Date.now() + 2_500).toISOString();
    const waiting = movedMessage('ws_failing', 2).replace(
      '"priorAttempts":2',
      `"priorAttempts":2,"notBefore":"${notBefore}"`,
    );
    const [message] = (await sendAndReceive(slowLane, [waiting])) as [Message];

    expect(await deliver({ Records: [receivedRecord(message, slowLane)] })).toStrictEqual({
      batchItemFailures: [],
    });
    expect(failing.requests).toHaveLength(0);
    expect(await slowLane.counts()).toStrictEqual({ visible: 0, notVisible: 0, delayed: 1 });

    // Sent on as it was, visible once its time has come; attempted then as attempt 3 (2 before, 1 receive).
    const [sentOn] = await vi.waitFor(
      async () => {
        const received = await slowLane.receiveAll();
        expect(received).toHaveLength(1);
        return received;
      },
      { timeout: 15_000, interval: 250 },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(notBefore));
    expect(sentOn?.Body).toBe(waiting);
    expect(await deliver({ Records: [receivedRecord(sentOn as Message, slowLane)] })).toStrictEqual({
      batchItemFailures: [],
    });
    expect(failing.requests).toHaveLength(1);
    expect(
      (await scanTable(db.client, testTableNames.webhookFailures)).map((f) => [
        f.eventId?.S,
        f.attempts?.N,
        f.lastError?.S,
      ]),
    ).toStrictEqual([[inventoryEventId, '3', 'HTTP 500']]);
    await slowLane.remove([message, sentOn as Message]);
  });

  test('after the last delay the delivery is kept in the failures table, and the message succeeds', async () => {
    await subscribe('ws_failing', `${failing.endpoint}/hook`, ['inventory.changed'], {
      state: { S: 'isolated' },
    });
    const [first] = (await sendAndReceive(slowLane, [movedMessage('ws_failing', 1)])) as [Message];
    const second = await receiveAgain(first);
    expect(second.Attributes?.ApproximateReceiveCount).toBe('2');
    const before = Date.now();

    const { result: response, records } = await jsonLinesWritten(() =>
      deliver({ Records: [receivedRecord(second, slowLane)] }),
    );
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([1]);

    expect(response).toStrictEqual({ batchItemFailures: [] });
    // Its visibility is left as it was (in flight until the mapping deletes it): no retry delay set.
    await sleep(1_300);
    expect(await slowLane.receiveAll()).toStrictEqual([]);
    await slowLane.remove([second]);
    const [failure, ...others] = await scanTable(db.client, testTableNames.webhookFailures);
    expect(others).toStrictEqual([]);
    const failedAt = failure?.failedAt?.S ?? '';
    expect(Date.parse(failedAt)).toBeGreaterThanOrEqual(before);
    expect(failedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const event: [string, string, string] = ['inventory.changed', '2026-11-26T09:30:00.123Z', inventoryJson];
    expect(failure).toStrictEqual(
      failureRecord('ws_failing', inventoryEventId, event, {
        attempts: 3,
        lastStatus: 500,
        lastError: 'HTTP 500',
        failedAt,
      }),
    );
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

  test('a slow subscriber does not delay the others: the messages are attempted in parallel, each up to 10 s', async () => {
    const slow = await startWebhookReceiver();
    try {
      slow.answer = { stallMs: 3_000 };
      await subscribe('ws_slow', slow.endpoint, ['inventory.changed'], { state: { S: 'isolated' } });
      await subscribe('ws_fast', fast.endpoint, ['inventory.changed'], { state: { S: 'isolated' } });
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
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_990);
      // A quick delivery brings its endpoint back to the fast lane; a slow one (3 s) stays in the slow lane.
      expect((await storedEndpoint('ws_fast'))?.state).toStrictEqual({ S: 'enabled' });
      expect((await storedEndpoint('ws_slow'))?.state).toStrictEqual({ S: 'isolated' });
    } finally {
      await slow.close();
    }
  });

  test('a delivered attempt ends the failing period: failingSince is removed', async () => {
    await subscribe('ws_back', fast.endpoint, ['inventory.changed'], {
      state: { S: 'isolated' },
      failingSince: { S: msAgo(4 * day) },
    });
    expect(await deliver({ Records: [sqsRecord('m-back', movedMessage('ws_back', 1), 1)] })).toStrictEqual({
      batchItemFailures: [],
    });
    const stored = await storedEndpoint('ws_back');
    expect(stored?.state).toStrictEqual({ S: 'enabled' });
    expect(stored?.failingSince).toBeUndefined();
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

  test('a body that is not a delivery message is dropped', async () => {
    const record = sqsRecord('m-junk', 'not json', 1);
    expect(await deliver({ Records: [record] })).toStrictEqual({ batchItemFailures: [] });
  });
});

describe('deliverWebhooks, the breaker (every attempt failed for 5 days)', () => {
  test('a failed attempt 5 days after the first failed one disables the endpoint: counted once, kept as a failure, no more attempts', async () => {
    const failingSince = msAgo(5 * day + 60_000);
    await subscribe('ws_dead', `${failing.endpoint}/hook`, ['inventory.changed'], {
      state: { S: 'isolated' },
      failingSince: { S: failingSince },
    });
    const before = Date.now();

    const { result, records } = await jsonLinesWritten(() =>
      deliver({ Records: [sqsRecord('m-dead', inventoryMessage('ws_dead'), 1)] }),
    );

    expect(result).toStrictEqual({ batchItemFailures: [] });
    expect(failing.requests).toHaveLength(1);
    expect(metricValues(records, 'WebhookEndpointsDisabled')).toStrictEqual([1]);
    expect(metricValues(records, 'WebhookDeliveriesFailed')).toStrictEqual([]);
    const stored = await storedEndpoint('ws_dead');
    const disabledAt = stored?.disabledAt?.S ?? '';
    expect(Date.parse(disabledAt)).toBeGreaterThanOrEqual(before);
    expect(stored).toMatchObject({ state: { S: 'disabled' }, failingSince: { S: failingSince } });
    expect(
      (await scanTable(db.client, testTableNames.webhookFailures)).map((f) => [
        f.eventId?.S,
        f.attempts?.N,
        f.lastError?.S,
      ]),
    ).toStrictEqual([[inventoryEventId, '1', 'HTTP 500']]);

    // A disabled endpoint's next delivery, in either lane: no attempt, kept as a failure for a redrive.
    await clearTable(testTableNames.webhookFailures, ['subscriptionId', 'eventId']);
    const { result: next, records: nextRecords } = await jsonLinesWritten(() =>
      deliver({
        Records: [
          sqsRecord('m-next', inventoryMessage('ws_dead'), 1, fastLaneArn),
          sqsRecord(
            'm-later',
            movedMessage('ws_dead', 1).replace('.-9223372036854775808.4', '.-9223372036854775808.5'),
            1,
          ),
        ],
      }),
    );
    expect(next).toStrictEqual({ batchItemFailures: [] });
    expect(metricValues(nextRecords, 'WebhookEndpointsDisabled')).toStrictEqual([]);
    expect(failing.requests).toHaveLength(1);
    expect(
      (await scanTable(db.client, testTableNames.webhookFailures))
        .map((f) => [f.eventId?.S, f.attempts?.N, f.lastError?.S])
        .sort(),
    ).toStrictEqual([
      [inventoryEventId, '0', 'not attempted: the endpoint is disabled'],
      ['inventory.-9223372036854775808.5', '1', 'not attempted: the endpoint is disabled'],
    ]);
  });

  test('failing for less than 5 days: the failed attempt is retried, the endpoint stays isolated', async () => {
    const failingSince = msAgo(5 * day - 60_000);
    await subscribe('ws_nearly', `${failing.endpoint}/hook`, ['inventory.changed'], {
      state: { S: 'isolated' },
      failingSince: { S: failingSince },
    });
    const [message] = (await sendAndReceive(slowLane, [inventoryMessage('ws_nearly')])) as [Message];
    expect(await deliver({ Records: [receivedRecord(message, slowLane)] })).toStrictEqual({
      batchItemFailures: [{ itemIdentifier: message.MessageId }],
    });
    expect(await storedEndpoint('ws_nearly')).toMatchObject({
      state: { S: 'isolated' },
      failingSince: { S: failingSince },
    });
    const retried = await backInQueue();
    expect(idsAndCounts(retried)).toStrictEqual([[message.MessageId, '2']]);
    await slowLane.remove(retried);
  });
});
