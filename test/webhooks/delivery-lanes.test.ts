/**
 * The delivery's interpreter (lib/webhooks/delivery-lanes.ts; docs/architecture.md "Webhook delivery: decide, then
 * act"): for each decision, what it does to the endpoint, the slow lane, the failures table, the attempts log,
 * the metrics and the batch's answer. The stores and queues are recording stand-ins; the attempts go to a local
 * receiver over HTTP.
 */
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { AttemptFacts } from '#lib/webhooks/attempt-log.ts';
import { type DeliveryDependencies, deliverMessages } from '#lib/webhooks/delivery-lanes.ts';
import { type DeliveryMessage, deliveryMessageBody } from '#lib/webhooks/delivery-message.ts';
import type { Endpoint } from '#lib/webhooks/endpoint.ts';
import type { WebhookFailure } from '#lib/webhooks/failures.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

const now = new Date('2026-12-08T10:00:00.000Z');
/** `now` plus `seconds`. */
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const endpointId = 'ws_LANES0000000001';
const message: DeliveryMessage = {
  endpointId,
  eventId: 'inventory.7.1',
  type: 'inventory.low_stock',
  timestamp: '2026-12-08T09:59:59Z',
  data: { petId: '7', quantity: 1, reorderPoint: 2, sequence: 1 },
};

/** Everything the interpreter did, in order, as `[what, ...arguments]`. */
let calls: unknown[][];
/** The endpoints the store holds. */
let endpoints: Map<string, Endpoint>;
/** What the breaker's conditional write answers. */
let disableWins: boolean;
/** Whether the early delete fails. */
let deleteFails: boolean;

/** An endpoint to the receiver, `enabled` unless `rest` says otherwise. */
function endpoint(rest: Partial<Endpoint> = {}): Endpoint {
  return {
    endpointId,
    url: `${receiver.endpoint}/hook`,
    events: ['inventory.low_stock'],
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    createdAt: '2026-12-01T00:00:00.000Z',
    state: 'enabled',
    ...rest,
  };
}

const deps: DeliveryDependencies = {
  endpoints: { get: async (id) => endpoints.get(id) },
  health: {
    isolate: async (...args) => void calls.push(['isolate', ...args]),
    delivered: async (...args) => void calls.push(['delivered', ...args]),
    disable: async (...args) => {
      calls.push(['disable', ...args]);
      return disableWins;
    },
  },
  failures: { put: async (failure: WebhookFailure) => void calls.push(['failure', failure]) },
  slowLane: {
    move: async (...args) => void calls.push(['move', ...args]),
    retryAfter: async (...args) => void calls.push(['retryAfter', ...args]),
  },
  handled: async (record, lane) => {
    if (deleteFails) throw new Error('AccessDenied');
    calls.push(['handled', record.messageId, lane]);
  },
  schedule: { retryDelays: [5, 300], disableAfterSeconds: 432_000 },
  random: () => 0.5,
  policy: 'local',
  now: () => now,
  onFailureKept: () => void calls.push(['failureKept']),
  onDisabled: () => void calls.push(['disabled']),
  log: (line, details) => void calls.push(['log', line, details]),
  info: (line, details) => void calls.push(['info', line, details]),
  attempts: {
    record: async (facts: AttemptFacts) =>
      void calls.push(['attempt', facts.attempt, facts.nextAttemptAt, facts.outcome]),
  },
};

beforeEach(() => {
  calls = [];
  endpoints = new Map([[endpointId, endpoint()]]);
  disableWins = true;
  deleteFails = false;
  receiver.answer = { status: 204 };
  receiver.requests.length = 0;
});

/** The message `body` received `receiveCount` times. */
function record(body: string, receiveCount = 1, messageId = 'm-1'): SQSRecord {
  return {
    messageId,
    receiptHandle: `receipt-${messageId}`,
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
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:webhook-slow-lane',
    awsRegion: 'us-east-1',
  };
}

const deliver = (records: SQSRecord[], lane: 'fast' | 'slow') =>
  deliverMessages({ Records: records }, () => lane, deps);
/** The calls other than the INFO attempt line (its `ms` varies). */
const acts = () => calls.filter(([what]) => what !== 'info');
const failed503 = { delivered: false, status: 503, error: 'HTTP 503' };

describe('the fast lane', () => {
  test('delivered: the attempt logged at INFO and recorded, the message deleted, the endpoint left as it is', async () => {
    expect(await deliver([record(deliveryMessageBody(message))], 'fast')).toStrictEqual({
      batchItemFailures: [],
    });
    expect(receiver.requests).toHaveLength(1);
    expect(calls.find(([what]) => what === 'info')).toStrictEqual([
      'info',
      'webhook attempt',
      { endpointId, eventId: 'inventory.7.1', attempt: 1, status: 204, ms: expect.any(Number) },
    ]);
    expect(acts()).toStrictEqual([
      ['attempt', 1, undefined, { delivered: true, status: 204 }],
      ['handled', 'm-1', 'fast'],
    ]);
  });

  test('failed: moved to the slow lane after the first delay, the failing period started, logged with its next time', async () => {
    receiver.answer = { status: 503 };
    expect(await deliver([record(deliveryMessageBody(message))], 'fast')).toStrictEqual({
      batchItemFailures: [],
    });
    const details = { endpointId, eventId: 'inventory.7.1', attempt: 1, status: 503, error: 'HTTP 503' };
    expect(acts()).toStrictEqual([
      ['attempt', 1, at(5), failed503],
      ['isolate', endpointId, now],
      ['move', { ...message, priorAttempts: 1 }, 5],
      ['log', 'webhook attempt failed, retried later', { ...details, nextAttemptAt: at(5) }],
      ['handled', 'm-1', 'fast'],
    ]);
  });

  test('an endpoint not enabled: moved unattempted; a gone one: dropped; a body that is no delivery: dropped and logged', async () => {
    endpoints.set(endpointId, endpoint({ state: 'isolated' }));
    endpoints.delete('ws_GONE00000000001');
    const gone = { ...message, endpointId: 'ws_GONE00000000001' };
    const answer = await deliver(
      [
        record(deliveryMessageBody(message), 1, 'm-1'),
        record(deliveryMessageBody(gone), 1, 'm-2'),
        record('{"eventId":"x"}', 1, 'm-3'),
      ],
      'fast',
    );
    expect(answer).toStrictEqual({ batchItemFailures: [] });
    expect(receiver.requests).toHaveLength(0);
    expect(acts()).toContainEqual(['move', message, 0]);
    expect(acts()).toContainEqual([
      'log',
      'dropped a message that is not a delivery',
      { messageId: 'm-3', error: 'Error: not a webhook delivery message' },
    ]);
    expect(acts().filter(([what]) => what === 'handled')).toStrictEqual(
      expect.arrayContaining([
        ['handled', 'm-1', 'fast'],
        ['handled', 'm-2', 'fast'],
        ['handled', 'm-3', 'fast'],
      ]),
    );
    expect(acts()).toHaveLength(5);
  });

  test('an attempt unanswered at 2 s is cut: moved at once, the endpoint isolated without a failing period', async () => {
    receiver.answer = { stallMs: 5_000 };
    await deliver([record(deliveryMessageBody(message))], 'fast');
    const details = { endpointId, eventId: 'inventory.7.1', attempt: 1, error: 'no response within 2 s' };
    expect(acts()).toStrictEqual([
      ['attempt', 1, now, { delivered: false, timedOut: true, error: 'no response within 2 s' }],
      ['isolate', endpointId],
      ['move', message, 0],
      ['log', 'webhook attempt cut, moved to the slow lane', details],
      ['handled', 'm-1', 'fast'],
    ]);
  });
});

describe('the slow lane', () => {
  test('failed: seen again after its delay (named in batchItemFailures, not deleted); an endpoint already failing is left as it is', async () => {
    endpoints.set(endpointId, endpoint({ state: 'isolated', failingSince: '2026-12-08T09:00:00.000Z' }));
    receiver.answer = { status: 503 };
    const moved = { ...message, priorAttempts: 1 };
    expect(await deliver([record(deliveryMessageBody(moved), 1)], 'slow')).toStrictEqual({
      batchItemFailures: [{ itemIdentifier: 'm-1' }],
    });
    expect(acts()).toStrictEqual([
      ['attempt', 2, at(300), failed503],
      [
        'log',
        'webhook attempt failed, retried later',
        {
          endpointId,
          eventId: 'inventory.7.1',
          attempt: 2,
          status: 503,
          error: 'HTTP 503',
          nextAttemptAt: at(300),
        },
      ],
      ['retryAfter', 'receipt-m-1', 300],
    ]);
  });

  test("after the schedule's last attempt: kept as a failure, counted once, logged", async () => {
    receiver.answer = { status: 503 };
    const moved = { ...message, priorAttempts: 1 };
    await deliver([record(deliveryMessageBody(moved), 2)], 'slow');
    expect(acts()).toStrictEqual([
      ['attempt', 3, undefined, failed503],
      ['isolate', endpointId, now],
      [
        'failure',
        {
          ...message,
          attempts: 3,
          lastStatus: 503,
          lastError: 'HTTP 503',
          failedAt: '2026-12-08T10:00:00.000Z',
        },
      ],
      ['failureKept'],
      [
        'log',
        'webhook delivery failed for good, kept as a failure',
        { endpointId, eventId: 'inventory.7.1', attempt: 3, status: 503, error: 'HTTP 503' },
      ],
      ['handled', 'm-1', 'slow'],
    ]);
  });

  test('delivered by a failing endpoint: its failing period ends, enabled again (quick)', async () => {
    endpoints.set(endpointId, endpoint({ state: 'isolated', failingSince: '2026-12-08T09:00:00.000Z' }));
    await deliver([record(deliveryMessageBody({ ...message, priorAttempts: 1 }))], 'slow');
    expect(acts()).toStrictEqual([
      ['attempt', 2, undefined, { delivered: true, status: 204 }],
      ['delivered', endpointId, true],
      ['handled', 'm-1', 'slow'],
    ]);
  });

  test('the breaker: disabled, counted and logged once when this call disabled it; kept without counting a failure', async () => {
    const since = '2026-12-03T10:00:00.000Z';
    endpoints.set(endpointId, endpoint({ state: 'isolated', failingSince: since }));
    receiver.answer = { status: 500 };
    const moved = { ...message, priorAttempts: 1 };
    await deliver([record(deliveryMessageBody(moved))], 'slow');
    const details = { endpointId, eventId: 'inventory.7.1', attempt: 2, status: 500, error: 'HTTP 500' };
    const failure = {
      ...message,
      attempts: 2,
      lastStatus: 500,
      lastError: 'HTTP 500',
      failedAt: now.toISOString(),
    };
    expect(acts()).toStrictEqual([
      ['attempt', 2, undefined, { delivered: false, status: 500, error: 'HTTP 500' }],
      ['disable', endpointId, since, now],
      ['disabled'],
      ['log', 'webhook endpoint disabled', { ...details, failingSince: since }],
      ['failure', failure],
      ['handled', 'm-1', 'slow'],
    ]);
    calls = [];
    disableWins = false;
    await deliver([record(deliveryMessageBody(moved))], 'slow');
    expect(acts().map(([what]) => what)).toStrictEqual(['attempt', 'disable', 'failure', 'handled']);
  });

  test('a disabled endpoint: kept unattempted with the attempts made so far, no response status', async () => {
    endpoints.set(endpointId, endpoint({ state: 'disabled' }));
    await deliver([record(deliveryMessageBody({ ...message, priorAttempts: 1 }), 2)], 'slow');
    expect(receiver.requests).toHaveLength(0);
    expect(acts()).toStrictEqual([
      [
        'failure',
        {
          ...message,
          attempts: 2,
          lastError: 'not attempted: the endpoint is disabled',
          failedAt: '2026-12-08T10:00:00.000Z',
        },
      ],
      ['handled', 'm-1', 'slow'],
    ]);
  });

  test('a message waiting for its notBefore is sent on unattempted, hidden until then (at most 900 s)', async () => {
    const waiting = { ...message, priorAttempts: 2, notBefore: at(3_600).toISOString() };
    await deliver([record(deliveryMessageBody(waiting))], 'slow');
    expect(receiver.requests).toHaveLength(0);
    expect(acts()).toStrictEqual([
      ['move', waiting, 900],
      ['handled', 'm-1', 'slow'],
    ]);
  });
});

describe('the batch', () => {
  test('a message whose store fails is named to be seen again and logged; the others are handled', async () => {
    const failingDeps = {
      ...deps,
      endpoints: {
        get: async (id: string) => {
          if (id === 'ws_BROKEN000000001') throw new Error('ProvisionedThroughputExceeded');
          return endpoints.get(id);
        },
      },
    };
    const broken = { ...message, endpointId: 'ws_BROKEN000000001' };
    const answer = await deliverMessages(
      {
        Records: [
          record(deliveryMessageBody(broken), 1, 'm-1'),
          record(deliveryMessageBody(message), 1, 'm-2'),
        ],
      },
      () => 'fast',
      failingDeps,
    );
    expect(answer).toStrictEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(acts()).toContainEqual([
      'log',
      'webhook message not handled, seen again after its visibility timeout',
      { messageId: 'm-1', error: 'Error: ProvisionedThroughputExceeded' },
    ]);
    expect(acts()).toContainEqual(['handled', 'm-2', 'fast']);
    expect(acts()).not.toContainEqual(['handled', 'm-1', 'fast']);
  });

  test('an early delete that fails is logged; the message is not named again (the mapping deletes it)', async () => {
    deleteFails = true;
    expect(await deliver([record(deliveryMessageBody(message))], 'fast')).toStrictEqual({
      batchItemFailures: [],
    });
    expect(acts()).toContainEqual([
      'log',
      'webhook message not deleted early',
      { messageId: 'm-1', error: 'Error: AccessDenied' },
    ]);
  });
});
