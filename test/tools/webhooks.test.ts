/**
 * `npm run webhooks` on a local store (dynalite on a data folder, as `npm start` keeps it), the delivery queue
 * reached through the local AWS endpoint file `<dataDir>/aws-endpoint` (here the real local queue of local-api,
 * test/support/local-queue.ts, read back with ReceiveMessage).
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type AttributeValue, DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startTestStore, type TestStore, temporaryDir } from '@pet-store/local-aws/testing';
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { attemptRecorder, type WebhookAttempt } from '#lib/webhooks/attempt-log.ts';
import { localDeliveryQueueName } from '#ops/target.ts';
import { type ChildResult, childEnv, exited, runNode, scripts } from '#test/support/child-process.ts';
import { type LocalQueueFixture, startLocalQueue } from '#test/support/local-queue.ts';
import { failureRecord, putItem, scanTable } from '#test/support/raw-tables.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';

let db: TestStore;
let queue: LocalQueueFixture;
let dataDir: string;

beforeAll(async () => {
  dataDir = await temporaryDir('webhooks-tool-');
  db = await startTestStore({ dataDir, tables: serviceTables });
  // As `npm start` runs it: the queue the tool asks for by name, the endpoint in <dataDir>/aws-endpoint,
  // accepting the data folder's credentials.
  queue = await startLocalQueue({ name: localDeliveryQueueName, credentials: db.credentials, dataDir });
});
cleanUpAfterAll(
  () => queue?.close(),
  () => db?.close(),
);

/** `npm run webhooks -- ...args` on the local store of {@link dataDir}, with `env` added. */
function webhooks(...args: string[]): Promise<ChildResult>;
function webhooks(env: Record<string, string>, ...args: string[]): Promise<ChildResult>;
function webhooks(...args: (string | Record<string, string>)[]): Promise<ChildResult> {
  const [first, ...rest] = args;
  const [env, argv] = typeof first === 'object' ? [first, rest as string[]] : [{}, args as string[]];
  return runNode(scripts.webhooks, argv, { env: childEnv({ DATA_DIR: dataDir, ...env }) });
}

async function clearTable(table: string, keys: string[]) {
  for (const item of await scanTable(db.client, table)) {
    const Key = Object.fromEntries(keys.map((k) => [k, item[k] as AttributeValue]));
    await db.client.send(new DeleteItemCommand({ TableName: table, Key }));
  }
}

beforeEach(async () => {
  await clearTable(testTableNames.webhookEndpoints, ['subscriptionId']);
  await clearTable(testTableNames.webhookFailures, ['subscriptionId', 'eventId']);
  await clearTable(testTableNames.webhookEndpointOwners, ['ownerKeyId']);
  await clearTable(testTableNames.webhookAttempts, ['endpointId', 'attemptId']);
});
afterEach(async () => {
  // Each test takes what it sent out of the queue; a message left visible is deleted (so that the next test
  // starts empty) and fails the test that left it.
  const left = await queue.receiveAll();
  await queue.remove(left);
  expect(left.map((m) => m.Body)).toStrictEqual([]);
  expect(await queue.counts()).toStrictEqual({ visible: 0, notVisible: 0, delayed: 0 });
});

const endpoints = () => scanTable(db.client, testTableNames.webhookEndpoints);
const failures = () => scanTable(db.client, testTableNames.webhookFailures);

describe('webhooks --help', () => {
  test('exits 0 and describes add, list, remove, enable, disable, failures, attempts and redrive', async () => {
    const result = await webhooks('--help');

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: webhooks \[options\] \[command\]$/m);
    expect(result.stdout).toMatch(
      /^ {2}add \[options\] <url> +subscribe a URL to events and print its signing$/m,
    );
    expect(result.stdout).toMatch(/^ {2}list \[options\] +list endpoints: id, url, events, creation,/m);
    expect(result.stdout).toMatch(/^ {2}enable \[options\] <id> +enable an endpoint the breaker disabled/m);
    expect(result.stdout).toMatch(/^ {2}disable \[options\] <id> +disable an endpoint/m);
    expect(result.stdout).toMatch(/^ {2}remove \[options\] <id> +remove an endpoint/m);
    expect(result.stdout).toMatch(
      /^ {2}failures \[options\] +list the deliveries that failed: those still being$/m,
    );
    expect(result.stdout).toMatch(
      /^ {2}attempts \[options\] <id> +list an endpoint's delivery attempts of the last$/m,
    );
    expect(result.stdout).toMatch(/^ {2}redrive \[options\] <id> +send an endpoint's failed deliveries/m);
  });
});

describe('webhooks add and list', () => {
  test('add prints the secret once on stdout and the id on stderr; list shows id, url, events, creation, never the secret', async () => {
    const before = Date.now();
    const result = await webhooks('add', 'http://127.0.0.1:9999/hooks');

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{32}\n$/);
    const secret = result.stdout.trim();
    const match =
      /^Added endpoint (ws_[A-Za-z0-9_-]{16}) to inventory\.changed, inventory\.low_stock, order\.changed at http:\/\/127\.0\.0\.1:9999\/hooks\. Its signing secret is shown once:\n$/.exec(
        result.stderr,
      );
    expect(match, result.stderr).not.toBeNull();
    const id = match?.[1] as string;
    const [stored, ...others] = await endpoints();
    expect(others).toStrictEqual([]);
    const createdAt = stored?.createdAt?.S ?? '';
    expect(Date.parse(createdAt)).toBeGreaterThanOrEqual(before);
    expect(stored).toStrictEqual({
      subscriptionId: { S: id },
      url: { S: 'http://127.0.0.1:9999/hooks' },
      events: { L: [{ S: 'inventory.changed' }, { S: 'inventory.low_stock' }, { S: 'order.changed' }] },
      secret: { S: secret },
      createdAt: { S: createdAt },
      state: { S: 'enabled' },
    });

    const [listed, table] = await Promise.all([webhooks('list', '--json'), webhooks('list')]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toStrictEqual([
      {
        id,
        url: 'http://127.0.0.1:9999/hooks',
        events: ['inventory.changed', 'inventory.low_stock', 'order.changed'],
        createdAt,
        state: 'enabled',
        disabledAt: null,
        disabledReason: null,
        owner: null,
      },
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(id);
    expect(table.stdout).toContain('inventory.changed inventory.low_stock order.changed');
    for (const output of [listed, table]) {
      expect(output.stdout + output.stderr).not.toContain(secret.slice('whsec_'.length));
    }
  });

  test('--events order.changed subscribes to that type only; http://localhost is allowed locally', async () => {
    const result = await webhooks('add', 'http://localhost:3000/orders', '--events', 'order.changed');

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^Added endpoint ws_\S+ to order\.changed at http:\/\/localhost:3000\/orders\./,
    );
    const [stored] = await endpoints();
    expect(stored?.events).toStrictEqual({ L: [{ S: 'order.changed' }] });
  });

  test.each([
    [
      ['http://hooks.example.com/'],
      'webhooks: http://hooks.example.com/: webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)\n',
    ],
    [['https://10.0.0.1/'], 'webhooks: https://10.0.0.1/: 10.0.0.1 is not a public address (private)\n'],
    [
      ['https://169.254.169.254/latest/'],
      'webhooks: https://169.254.169.254/latest/: 169.254.169.254 is not a public address (linkLocal)\n',
    ],
    [
      ['https://hooks.example.com/', '--events', 'pet.deleted'],
      "error: option '--events <types>' argument 'pet.deleted' is invalid. unknown event type pet.deleted: the types are inventory.changed, inventory.low_stock, order.changed\n",
    ],
  ])('add %j is refused, exits 1 and stores nothing', async (args, message) => {
    const result = await webhooks('add', ...args);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(message);
    expect(await endpoints()).toStrictEqual([]);
  });

  test('list with no endpoint says so', async () => {
    expect(await webhooks('list')).toStrictEqual(exited(0, 'No endpoints.\n'));
  });
});

/** Stores an endpoint as `add` does. */
async function subscribe(endpointId: string, extra: Record<string, AttributeValue> = {}) {
  await db.client.send(
    new PutItemCommand({
      TableName: testTableNames.webhookEndpoints,
      Item: {
        subscriptionId: { S: endpointId },
        url: { S: 'http://127.0.0.1:9999/hooks' },
        events: { L: [{ S: 'inventory.changed' }] },
        secret: { S: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        createdAt: { S: '2026-11-26T08:00:00.000Z' },
        ...extra,
      },
    }),
  );
}

/** An endpoint as the breaker leaves it: disabled after failing every attempt since `failingSince`. */
const disabled = {
  state: { S: 'disabled' },
  failingSince: { S: '2026-11-20T08:00:00.000Z' },
  disabledAt: { S: '2026-11-25T08:00:05.000Z' },
  disabledReason: { S: 'failing' },
};

describe('webhooks enable (the breaker: docs/operating.md "Webhooks")', () => {
  test('list shows a disabled endpoint and since when; redrive refuses it; enable re-enables it, then redrive sends its failures', async () => {
    await subscribe('ws_dead', disabled);
    await fail('ws_dead', 1, 500);

    const listed = JSON.parse((await webhooks('list', '--json')).stdout) as Record<string, unknown>[];
    expect(listed).toMatchObject([
      { id: 'ws_dead', state: 'disabled', disabledAt: '2026-11-25T08:00:05.000Z', disabledReason: 'failing' },
    ]);
    expect((await webhooks('list')).stdout).toMatch(/ws_dead.*disabled.*2026-11-25T08:00:05\.000Z.*failing/);
    expect(await webhooks('redrive', 'ws_dead')).toStrictEqual(
      exited(1, '', 'webhooks: endpoint ws_dead is disabled: enable it first (webhooks enable ws_dead)\n'),
    );
    expect(await failures()).toHaveLength(1);

    expect(await webhooks('enable', 'ws_dead')).toStrictEqual(
      exited(0, 'Enabled endpoint ws_dead: redrive its failed deliveries with webhooks redrive ws_dead.\n'),
    );
    const [stored] = await endpoints();
    expect(stored?.state).toStrictEqual({ S: 'enabled' });
    expect(stored?.failingSince).toBeUndefined();
    expect(stored?.disabledAt).toBeUndefined();
    expect(stored?.disabledReason).toBeUndefined();
    expect(JSON.parse((await webhooks('list', '--json')).stdout)).toMatchObject([
      { id: 'ws_dead', state: 'enabled', disabledAt: null, disabledReason: null },
    ]);

    expect((await webhooks('redrive', 'ws_dead')).stdout).toBe(
      'Redrove 1 failed deliveries of ws_dead to the delivery queue.\n',
    );
    const received = await queue.receiveAll();
    expect(received.map((m) => JSON.parse(m.Body ?? '').eventId)).toStrictEqual(['inventory.42.1']);
    await queue.remove(received);
  });

  test('an unknown id exits 1 and says so', async () => {
    expect(await webhooks('enable', 'ws_nope')).toStrictEqual(
      exited(1, '', 'webhooks: no endpoint ws_nope\n'),
    );
  });
});

describe('webhooks disable, and an API key\'s endpoints (docs/operating.md "Webhooks")', () => {
  /** An endpoint `id` that createWebhookEndpoint made for the key `owner`: the endpoint and the owner's set. */
  async function endpoint(id: string, owner: string, others: string[] = []) {
    await subscribe(id, { ownerKeyId: { S: owner }, state: { S: 'enabled' } });
    await db.client.send(
      new PutItemCommand({
        TableName: testTableNames.webhookEndpointOwners,
        Item: { ownerKeyId: { S: owner }, endpointIds: { SS: [id, ...others] } },
      }),
    );
  }

  test("list shows the owner key id of an endpoint made through the API, - for the tool's", async () => {
    await subscribe('ws_tool');
    await endpoint('ws_api', '8551c41ef090');

    const listed = JSON.parse((await webhooks('list', '--json')).stdout) as Record<string, unknown>[];
    expect(listed.map(({ id, owner }) => ({ id, owner }))).toStrictEqual([
      { id: 'ws_api', owner: '8551c41ef090' },
      { id: 'ws_tool', owner: null },
    ]);
    const table = (await webhooks('list')).stdout;
    expect(table).toMatch(/ws_api.*'8551c41ef090'/);
    expect(table).toMatch(/ws_tool.*'-'/);
  });

  test('disable disables any endpoint (no attempt until enable); an unknown id exits 1', async () => {
    await endpoint('ws_api', '8551c41ef090');

    expect(await webhooks('disable', 'ws_api')).toStrictEqual(
      exited(0, 'Disabled endpoint ws_api: enable it again with webhooks enable ws_api.\n'),
    );
    const [stored] = await endpoints();
    expect(stored?.state).toStrictEqual({ S: 'disabled' });
    expect(stored?.disabledReason).toStrictEqual({ S: 'operator' });
    expect(Date.parse(stored?.disabledAt?.S ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(await webhooks('disable', 'ws_nope')).toStrictEqual(
      exited(1, '', 'webhooks: no endpoint ws_nope\n'),
    );
  });

  test("remove of an API key's endpoint takes it out of the key's set too, so it no longer counts to its 20", async () => {
    await endpoint('ws_api', '8551c41ef090', ['ws_other']);

    expect((await webhooks('remove', 'ws_api')).stdout).toBe('Removed endpoint ws_api.\n');

    expect(await endpoints()).toStrictEqual([]);
    expect(await scanTable(db.client, testTableNames.webhookEndpointOwners)).toStrictEqual([
      { ownerKeyId: { S: '8551c41ef090' }, endpointIds: { SS: ['ws_other'] } },
    ]);
  });
});

describe('webhooks remove', () => {
  test('removes the endpoint', async () => {
    await subscribe('ws_keep');
    await subscribe('ws_gone');

    expect(await webhooks('remove', 'ws_gone')).toStrictEqual(exited(0, 'Removed endpoint ws_gone.\n'));
    expect((await endpoints()).map((s) => s.subscriptionId?.S)).toStrictEqual(['ws_keep']);
  });

  test('an unknown id exits 1 and says so', async () => {
    expect(await webhooks('remove', 'ws_nope')).toStrictEqual(
      exited(1, '', 'webhooks: no endpoint ws_nope\n'),
    );
  });
});

/** When the pet's `sequence`-th change occurred. */
const occurredAt = (sequence: number) => `2026-11-25T10:00:0${sequence}.000Z`;
/**
 * The exact JSON text of the change record of a kept failure, as the delivery stores it (lib/events/change-json.ts):
 * the pet's `sequence`-th change, an order placed whose id is past 2^53, the ids JSON numbers digit for digit.
 */
const data = (sequence: number) =>
  `{"sequence":${sequence},"petId":42,"occurredAt":"${occurredAt(sequence)}","reason":"order_placed","quantity":{"from":${sequence + 1},"to":${sequence}},"status":{"from":"available","to":"available"},"orderId":179568540012300000${sequence}}`;

/** Stores a failure as the delivery keeps it. */
async function fail(endpointId: string, sequence: number, lastStatus?: number) {
  const end =
    lastStatus === undefined
      ? { lastError: 'no response within 10 s' }
      : { lastStatus, lastError: `HTTP ${lastStatus}` };
  const event: [string, string, string] = ['inventory.changed', occurredAt(sequence), data(sequence)];
  const kept = { attempts: 8, ...end, failedAt: '2026-11-26T14:00:00.000Z' };
  const failure = failureRecord(endpointId, `inventory.42.${sequence}`, event, kept);
  await putItem(db.client, testTableNames.webhookFailures, failure);
}

describe('webhooks failures', () => {
  test('lists each failure: endpoint, event id, type, attempts, last status and error, failed at', async () => {
    await fail('ws_a', 1, 503);
    await fail('ws_a', 2);

    const result = await webhooks('failures', '--json');

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toStrictEqual([
      {
        endpoint: 'ws_a',
        eventId: 'inventory.42.1',
        type: 'inventory.changed',
        attempts: 8,
        lastStatus: 503,
        lastError: 'HTTP 503',
        nextAttemptAt: null,
        failedAt: '2026-11-26T14:00:00.000Z',
      },
      {
        endpoint: 'ws_a',
        eventId: 'inventory.42.2',
        type: 'inventory.changed',
        attempts: 8,
        lastStatus: null,
        lastError: 'no response within 10 s',
        nextAttemptAt: null,
        failedAt: '2026-11-26T14:00:00.000Z',
      },
    ]);
    const table = await webhooks('failures');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /│ 0 +│ 'ws_a' +│ 'inventory\.42\.1' │ 'inventory\.changed' │ 8 +│ 503 +│ 'HTTP 503' +│/,
    );
    expect(table.stdout).toMatch(
      /│ 1 +│ 'ws_a' +│ 'inventory\.42\.2' │ 'inventory\.changed' │ 8 +│ '-' +│ 'no response within 10 s' │/,
    );
  });

  test('none: says so', async () => {
    expect((await webhooks('failures')).stdout).toBe('No failed deliveries.\n');
  });
});

/** Stores `attempt` of the endpoint `endpointId` as the delivery records it (lib/webhooks/attempt-log.ts). */
async function storeAttempt(endpointId: string, { id, ...attempt }: WebhookAttempt) {
  const expiresAt = Math.floor(Date.parse(attempt.attemptedAt) / 1000) + 30 * 86_400;
  await putItem(
    db.client,
    testTableNames.webhookAttempts,
    marshall({ endpointId, attemptId: id, ...attempt, expiresAt }),
  );
}

/** An attempt's id at `epochMs`, as the delivery makes them: `wa_`, 13 digits of ms, 12 hex characters. */
const attemptId = (epochMs: number, tail: string) => `wa_${String(epochMs).padStart(13, '0')}${tail}`;

describe('webhooks attempts (docs/operating.md "Webhooks")', () => {
  test("lists an endpoint's attempts newest first, as listWebhookAttempts shows them: a failed one with its next time, a delivered one", async () => {
    await subscribe('ws_a');
    // An hour ago, to the second: the event 42.1 delivered at once; a minute later 42.2 answered 503.
    const start = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const delivered: WebhookAttempt = {
      id: attemptId(start, '0123456789ab'),
      eventId: 'inventory.42.1',
      eventType: 'inventory.changed',
      attempt: 1,
      attemptedAt: iso(start),
      durationMs: 31,
      responseStatus: 204,
      error: null,
      outcome: 'delivered',
      nextAttemptAt: null,
    };
    const failed: WebhookAttempt = {
      id: attemptId(start + 60_000, 'cdef01234567'),
      eventId: 'inventory.42.2',
      eventType: 'inventory.changed',
      attempt: 1,
      attemptedAt: iso(start + 60_000),
      durationMs: 1250,
      responseStatus: 503,
      error: null,
      outcome: 'failed',
      nextAttemptAt: iso(start + 61_250 + 5_000),
    };
    await storeAttempt('ws_a', delivered);
    await storeAttempt('ws_a', failed);
    // Another endpoint's attempt is not listed.
    await storeAttempt('ws_b', { ...failed, id: attemptId(start + 90_000, '000000000000') });

    const [listed, table] = await Promise.all([
      webhooks('attempts', 'ws_a', '--json'),
      webhooks('attempts', 'ws_a'),
    ]);

    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toStrictEqual([failed, delivered]);
    expect(table).toStrictEqual(
      exited(
        0,
        [
          '┌─────────┬─────────┬──────────────────┬─────────────────────┬────────────────────────────┬────────────┬────────────────┬───────┬─────────────┬────────────────────────────┐',
          '│ (index) │ attempt │ eventId          │ eventType           │ attemptedAt                │ durationMs │ responseStatus │ error │ outcome     │ nextAttemptAt              │',
          '├─────────┼─────────┼──────────────────┼─────────────────────┼────────────────────────────┼────────────┼────────────────┼───────┼─────────────┼────────────────────────────┤',
          `│ 0       │ 1       │ 'inventory.42.2' │ 'inventory.changed' │ '${failed.attemptedAt}' │ 1250       │ 503            │ '-'   │ 'failed'    │ '${failed.nextAttemptAt}' │`,
          `│ 1       │ 1       │ 'inventory.42.1' │ 'inventory.changed' │ '${delivered.attemptedAt}' │ 31         │ 204            │ '-'   │ 'delivered' │ '-'                        │`,
          '└─────────┴─────────┴──────────────────┴─────────────────────┴────────────────────────────┴────────────┴────────────────┴───────┴─────────────┴────────────────────────────┘',
          '',
        ].join('\n'),
      ),
    );
    expect((await webhooks('attempts', 'ws_a', '--limit', '1', '--json')).stdout).toBe(
      `${JSON.stringify([failed], null, 2)}\n`,
    );
  });

  test('an endpoint without attempts says so; an unknown id and a bad --limit exit 1 and say so', async () => {
    await subscribe('ws_quiet');

    expect(await webhooks('attempts', 'ws_quiet')).toStrictEqual(
      exited(0, 'No attempts of ws_quiet in the last 30 days.\n'),
    );
    expect(await webhooks('attempts', 'ws_nope')).toStrictEqual(
      exited(1, '', 'webhooks: no endpoint ws_nope\n'),
    );
    expect(await webhooks('attempts', 'ws_quiet', '--limit', '0')).toStrictEqual(
      exited(
        1,
        '',
        "error: option '--limit <n>' argument '0' is invalid. limit must be an integer from 1 to 1000\n",
      ),
    );
  });
});

describe('webhooks failures: the deliveries still being retried', () => {
  test("a failing endpoint is listed right after its first failed attempt, with its next attempt's time; then the kept failures", async () => {
    await subscribe('ws_fail');
    await fail('ws_kept', 1, 500);
    // The delivery's own writer, as deliverWebhooks calls it once its first attempt got a 500.
    const recorder = attemptRecorder(db.client, testTableNames.webhookAttempts, (message) => {
      throw new Error(message);
    });
    const started = Date.now();
    // The schedule's first delay (5 s) after the attempt, as its decision set it.
    const nextAttemptAt = new Date(started + 5_000);
    await recorder.record({
      message: { endpointId: 'ws_fail', eventId: 'inventory.42.3', type: 'inventory.changed' },
      attempt: 1,
      started,
      outcome: { delivered: false, status: 500, error: 'HTTP 500' },
      nextAttemptAt,
    });

    const result = await webhooks('failures', '--json');

    expect(result.code, result.stderr).toBe(0);
    const [retrying, ...kept] = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(retrying).toStrictEqual({
      endpoint: 'ws_fail',
      eventId: 'inventory.42.3',
      type: 'inventory.changed',
      attempts: 1,
      lastStatus: 500,
      lastError: 'HTTP 500',
      nextAttemptAt: nextAttemptAt.toISOString(),
      failedAt: null,
    });
    expect(kept).toStrictEqual([
      {
        endpoint: 'ws_kept',
        eventId: 'inventory.42.1',
        type: 'inventory.changed',
        attempts: 8,
        lastStatus: 500,
        lastError: 'HTTP 500',
        nextAttemptAt: null,
        failedAt: '2026-11-26T14:00:00.000Z',
      },
    ]);
    const table = await webhooks('failures');
    expect(table.stdout).toMatch(
      new RegExp(
        `│ 0 +│ 'ws_fail' +│ 'inventory\\.42\\.3' │ 'inventory\\.changed' │ 1 +│ 500 +│ 'HTTP 500' +│ '${retrying?.nextAttemptAt}' │ '-' +│`,
      ),
    );
  });

  test("only an event whose newest attempt failed with a next time: not one delivered on retry, nor one whose retries are spent, nor another's", async () => {
    await subscribe('ws_a');
    const start = Date.now() - 600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const attempt = (
      at: number,
      eventId: string,
      n: number,
      outcome: 'delivered' | 'failed',
      next?: number,
    ) =>
      storeAttempt('ws_a', {
        id: attemptId(at, `${n}`.padStart(12, '0')),
        eventId,
        eventType: 'inventory.changed',
        attempt: n,
        attemptedAt: iso(at),
        durationMs: 10,
        responseStatus: outcome === 'delivered' ? 200 : null,
        error: outcome === 'delivered' ? null : 'connection_refused',
        outcome,
        nextAttemptAt: next === undefined ? null : iso(next),
      });
    // 42.1 failed, then delivered on its retry; 42.2 failed twice, its third attempt due; 42.3 failed for good.
    await attempt(start, 'inventory.42.1', 1, 'failed', start + 5_000);
    await attempt(start + 5_000, 'inventory.42.1', 2, 'delivered');
    await attempt(start + 1_000, 'inventory.42.2', 1, 'failed', start + 6_000);
    await attempt(start + 6_000, 'inventory.42.2', 2, 'failed', start + 306_000);
    await attempt(start + 2_000, 'inventory.42.3', 8, 'failed');
    // An endpoint that is gone: the attempts of a removed endpoint are not retried.
    await storeAttempt('ws_gone', {
      id: attemptId(start, 'ffffffffffff'),
      eventId: 'inventory.42.4',
      eventType: 'inventory.changed',
      attempt: 1,
      attemptedAt: iso(start),
      durationMs: 10,
      responseStatus: null,
      error: 'timeout',
      outcome: 'failed',
      nextAttemptAt: iso(start + 5_000),
    });

    const result = await webhooks('failures', '--json');

    expect(JSON.parse(result.stdout)).toStrictEqual([
      {
        endpoint: 'ws_a',
        eventId: 'inventory.42.2',
        type: 'inventory.changed',
        attempts: 2,
        lastStatus: null,
        lastError: 'connection_refused',
        nextAttemptAt: iso(start + 306_000),
        failedAt: null,
      },
    ]);
  });
});

describe('webhooks redrive', () => {
  test("sends each of the endpoint's failures to the delivery queue as a fresh message, then deletes it", async () => {
    await subscribe('ws_a');
    await fail('ws_a', 1, 503);
    await fail('ws_a', 2);
    await fail('ws_b', 3, 500);

    const result = await webhooks('redrive', 'ws_a');

    expect(result).toStrictEqual(exited(0, 'Redrove 2 failed deliveries of ws_a to the delivery queue.\n'));
    const received = await queue.receiveAll();
    expect(received.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toStrictEqual([
      [
        `{"subscriptionId":"ws_a","eventId":"inventory.42.1","type":"inventory.changed","timestamp":"2026-11-25T10:00:01.000Z","data":{"sequence":1,"petId":42,"occurredAt":"2026-11-25T10:00:01.000Z","reason":"order_placed","quantity":{"from":2,"to":1},"status":{"from":"available","to":"available"},"orderId":1795685400123000001}}`,
        '1',
      ],
      [
        `{"subscriptionId":"ws_a","eventId":"inventory.42.2","type":"inventory.changed","timestamp":"2026-11-25T10:00:02.000Z","data":${data(2)}}`,
        '1',
      ],
    ]);
    await queue.remove(received);
    expect((await failures()).map((f) => [f.subscriptionId?.S, f.eventId?.S])).toStrictEqual([
      ['ws_b', 'inventory.42.3'],
    ]);
  });

  test('when the queue refuses a message, it exits 1 and keeps every failure not sent', async () => {
    await subscribe('ws_a');
    await fail('ws_a', 1, 503);
    const missingQueue = queue.url.replace(/[^/]+$/, 'no-such-queue');

    const result = await webhooks({ WEBHOOK_DELIVERY_QUEUE_URL: missingQueue }, 'redrive', 'ws_a');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'webhooks: stopped after redriving 0 of 1: The specified queue does not exist.\n',
    );
    expect((await failures()).map((f) => f.eventId?.S)).toStrictEqual(['inventory.42.1']);
  });

  test('a removed endpoint is refused: its deliveries would be dropped', async () => {
    await fail('ws_gone', 1, 503);

    expect(await webhooks('redrive', 'ws_gone')).toStrictEqual(
      exited(1, '', 'webhooks: no endpoint ws_gone: its deliveries could not be delivered\n'),
    );
    expect(await failures()).toHaveLength(1);
  });

  test('nothing to redrive: says so without touching the queue', async () => {
    await subscribe('ws_a');
    expect((await webhooks('redrive', 'ws_a')).stdout).toBe('No failed deliveries of ws_a.\n');
    expect(await queue.receiveAll()).toStrictEqual([]);
  });

  test('without the local service running (no aws-endpoint file) it says how to start it', async () => {
    await subscribe('ws_a');
    await fail('ws_a', 1, 503);
    const file = join(dataDir, 'aws-endpoint');
    await rename(file, `${file}.away`);
    try {
      const result = await webhooks('redrive', 'ws_a');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'webhooks: the local service is not running: start it with `npm start` (its queues live in it)\n',
      );
      expect(await failures()).toHaveLength(1);
    } finally {
      await rename(`${file}.away`, file);
    }
  });
});
