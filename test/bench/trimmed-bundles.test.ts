/**
 * The trimmed bundles still work: every function is bundled with the deployed esbuild settings
 * (`bundleFunction` of infra/bundling.ts, trims included: replaced credential chain, no event-stream code),
 * loaded in a fresh Node process of the Lambda runtime's major (24) with
 * `NODE_OPTIONS=--enable-source-maps` as deployed, and invoked once with a real event against the embedded
 * DynamoDB: listInventory 200 with the seeded entries, updateInventory 200 (and 404 for a missing pet, which
 * goes through the SDK's error classes), authorizer Allow for a stored key, deliverWebhooks a signed POST that
 * the real `standardwebhooks` verifies and a kept failure, fanOutWebhooks an SQS event of the change-events queue
 * (the bus event as text, int64 ids read exactly) and its exact delivery message. A trim that breaks the deployed
 * code fails here, not in production. Also checks, from esbuild's metafile and the output, that the trims are
 * in effect (a package restructured upstream could make an alias silently miss), and that the event functions,
 * which the bench does not measure, are within the bundle budget (`budgets.bundleKb`). No timing here: speed
 * figures come from `npm run bench` only.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { startTestStore, type TestStore } from '@pet-store/local-aws/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileName, bundleFunction } from '#infra/bundling.ts';
import { authorizer, eventFunctions, operations, stageName } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { keyStore } from '#lib/auth/key-store.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { tables } from '#lib/tables.ts';
import { budgets, bytesPerKb } from '../../bench/budgets.ts';
import { type ChangeEventsQueue, startChangeEventsQueue } from '../support/change-events-queue.ts';
import { placedOrderChange } from '../support/change-fixtures.ts';
import { restProxyEvent, tokenAuthorizerEvent } from '../support/lambda-events.ts';
import { type LocalQueueFixture, startLocalQueue } from '../support/local-queue.ts';
import { serviceTables, setFunctionEnvironment, testTableNames } from '../support/test-dynamodb.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/** The Lambda runtime's Node major (nodejs24.x). */
const runtimeMajor = 24;

/** What the invocation child sends back: the handler's result, or the error it threw. */
type Outcome = { result: unknown } | { error: string };

/**
 * The child's program: define the runtime's streaming globals (module at argv[3]), import the bundle at argv[1]
 * (as the Lambda runtime does at init), invoke `handler` once with the event in argv[2] and a Lambda context (a
 * streaming handler with a response stream, its response collected), send the outcome over IPC.
 */
const childProgram = `
const lambda = await import(process.argv[3]);
lambda.installStreamingRuntime();
const { handler } = await import(process.argv[1]);
let outcome;
try {
  const event = JSON.parse(process.argv[2]);
  outcome = { result: await lambda.invokeHandler(handler, event, lambda.lambdaContext('test')) };
} catch (error) {
  outcome = { error: String(error?.message ?? error) };
}
process.send({ node: process.versions.node, outcome }, () => process.exit(0));
`;

/** The event functions (change records and webhooks), bundled and checked here beside the API's. */
const eventFunctionList = Object.values(eventFunctions);

const scratch = mkdtempSync(join(tmpdir(), 'trimmed-bundles-'));
const bundles = new Map<string, string>();
/** Source files (metafile input paths) in each bundle's output. */
const bundleInputs = new Map<string, string[]>();
const apiKey = generateApiKey();
const seeded: InventoryItem[] = [
  { petId: '9223372036854775807', quantity: 3, status: 'available' },
  { petId: '-42', quantity: 0, status: 'sold' },
  { petId: '7', quantity: 12, status: 'pending' },
];
let db: TestStore;
/** The functions' environment (test tables on the embedded DynamoDB), set in this process by the test support. */
let functionEnv: Record<string, string>;

/** `GET /v1/inventory`. */
const listEvent = () => restProxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory' });

/** `PATCH /v1/inventory/{petId}` with body `{"quantity": quantity}`. */
const updateEvent = (petId: string, quantity: number) =>
  restProxyEvent({
    method: 'PATCH',
    resource: '/inventory/{petId}',
    path: `/inventory/${petId}`,
    pathParameters: { petId },
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ quantity }),
  });

/** The TOKEN event for `Authorization: Bearer <key>` on `GET /inventory`. */
const tokenEvent = (key: string) =>
  tokenAuthorizerEvent(
    `Bearer ${key}`,
    `arn:aws:execute-api:us-east-1:000000000000:test/${stageName}/GET/inventory`,
  );

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
  setFunctionEnvironment(db.endpoint, db.credentials);
  functionEnv = {
    ...(Object.fromEntries(
      Object.entries(process.env).filter(([name]) => /^(AWS_|POWERTOOLS_)|_TABLE_NAME$/.test(name)),
    ) as Record<string, string>),
    // updateInventory takes an Idempotency-Key: its records' table, as the stack binds it.
    [tables.idempotency.env]: testTableNames.idempotency,
  };
  const client = toDocumentClient(db.client);
  await inventoryStore(client, testTableNames.inventory).putMany(seeded);
  await keyStore(client, testTableNames.apiKeys).put({
    keyDigest: apiKeyDigest(apiKey),
    name: 'trimmed-bundle-test',
    createdAt: new Date().toISOString(),
  });
  for (const { name, entry } of [...operations, authorizer, ...eventFunctionList]) {
    const metafile = await bundleFunction(entry, join(scratch, name));
    const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(`/${bundleFileName}`));
    bundleInputs.set(name, Object.keys(output?.[1].inputs ?? {}));
    bundles.set(name, join(scratch, name, bundleFileName));
  }
});

afterAll(async () => {
  await db?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Loads the bundle of `name` in a fresh Node process (`env` added to its environment) and invokes it once with `event`. */
function invokeBundle(
  name: string,
  event: unknown,
  env: Record<string, string> = {},
): Promise<{ node: string; outcome: Outcome }> {
  const file = bundles.get(name);
  if (!file) throw new Error(`no bundle for ${name}`);
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      childProgram,
      pathToFileURL(file).href,
      JSON.stringify(event),
      new URL('../support/lambda-invoke.ts', import.meta.url).href,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        ...functionEnv,
        ...env,
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        NODE_OPTIONS: '--enable-source-maps',
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as { node: string; outcome: Outcome }));
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`${name} bundle exited (${code}) without a result: ${stderr}`)),
    );
  });
}

/** The handler's result, failing the test with the error when it threw. */
function resultOf(outcome: Outcome): unknown {
  if ('error' in outcome) throw new Error(`handler threw: ${outcome.error}`);
  return outcome.result;
}

describe('the trims of infra/bundling.ts are in effect', () => {
  it.each([...operations, authorizer].map(({ name }) => name))(
    '%s carries no credential provider but fromEnv and no event-stream code',
    (name) => {
      const inputs = bundleInputs.get(name) ?? [];
      expect(inputs.length).toBeGreaterThan(0);
      expect(
        inputs.filter((path) => /credential-provider-(?!env)|nested-clients|event-streams\//.test(path)),
      ).toEqual([]);
      expect(inputs.some((path) => path.endsWith('lib/bundle-shims/credential-provider-env.ts'))).toBe(true);
    },
  );
});

describe('the event functions, within the bundle budget', () => {
  it('deliverWebhooks signs with standardwebhooks, guards with node:net, and uses no document client', () => {
    const inputs = bundleInputs.get('deliverWebhooks') ?? [];
    expect(inputs.some((path) => path.includes('standardwebhooks/'))).toBe(true);
    expect(
      inputs.filter((path) => /ipaddr\.js|lib-dynamodb|SendMessageBatch|ScanCommand|QueryCommand/.test(path)),
    ).toEqual([]);
  });

  it.each(eventFunctionList.map(({ name }) => name))(
    `%s is at most ${budgets.bundleKb} KB (budgets.bundleKb, in the bench's KB of 1024 bytes)`,
    (name) => {
      expect(statSync(bundles.get(name) as string).size).toBeLessThanOrEqual(budgets.bundleKb * bytesPerKb);
    },
  );
});

describe('trimmed bundles, loaded in a fresh Node process and invoked against the embedded DynamoDB', () => {
  it('listInventory answers 200 with every seeded entry, sorted by petId, int64 exact', async () => {
    const { node, outcome } = await invokeBundle('listInventory', listEvent());
    expect(Number(node.split('.')[0])).toBeGreaterThanOrEqual(runtimeMajor);
    const result = resultOf(outcome) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe(
      '[{"petId":-42,"quantity":0,"status":"sold"},{"petId":7,"quantity":12,"status":"pending"},' +
        '{"petId":9223372036854775807,"quantity":3,"status":"available"}]',
    );
  });

  it('updateInventory answers 200 with the updated entry', async () => {
    const { outcome } = await invokeBundle('updateInventory', updateEvent('9223372036854775807', 5));
    const result = resultOf(outcome) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe('{"petId":9223372036854775807,"quantity":5,"status":"available"}');
  });

  it('updateInventory answers 404 for a missing pet (the conditional check failure is recognised)', async () => {
    const { outcome } = await invokeBundle('updateInventory', updateEvent('123456', 1));
    const result = resultOf(outcome) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('authorizer allows a stored key', async () => {
    const { outcome } = await invokeBundle('authorizer', tokenEvent(apiKey));
    const result = resultOf(outcome) as { policyDocument: { Statement: { Effect: string }[] } };
    expect(result.policyDocument.Statement[0]?.Effect).toBe('Allow');
  });

  it('authorizer refuses an unknown key with a Deny policy', async () => {
    const { outcome } = await invokeBundle('authorizer', tokenEvent(generateApiKey()));
    const result = resultOf(outcome) as { policyDocument: { Statement: { Effect: string }[] } };
    expect(result.policyDocument.Statement.map((statement) => statement.Effect)).toEqual(['Deny']);
  });
});

describe('the trimmed deliverWebhooks bundle, against the embedded DynamoDB and a local receiver', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  /**
   * An order placed for the pet with the int64 minimum id, the order's id past 2^53: the record's exact JSON,
   * as the fan-out writes it into the delivery message (lib/events/change-json.ts).
   */
  const data =
    '{"sequence":1,"petId":-9223372036854775808,"occurredAt":"2026-11-26T09:30:00.123Z","reason":"order_placed","quantity":{"from":3,"to":2},"status":{"from":"available","to":"available"},"orderId":1795685400123000001}';
  const eventId = 'inventory.-9223372036854775808.1';
  const occurredAt = '2026-11-26T09:30:00.123Z';
  const env = {
    [tables.webhookEndpoints.env]: testTableNames.webhookEndpoints,
    [tables.webhookFailures.env]: testTableNames.webhookFailures,
    [tables.webhookAttempts.env]: testTableNames.webhookAttempts,
    WEBHOOK_URL_POLICY: 'local',
    WEBHOOK_RETRY_DELAYS: '5',
    // The slow lane, whose records these are (no message is moved or retried here: no SQS request), and the
    // fast lane (the function deletes the fast lane's handled messages at once; none here).
    WEBHOOK_DELIVERY_QUEUE_URL: 'http://127.0.0.1:9/000000000000/webhook-deliveries',
    WEBHOOK_SLOW_LANE_QUEUE_URL: 'http://127.0.0.1:9/000000000000/webhook-slow-lane',
    WEBHOOK_SLOW_LANE_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:webhook-slow-lane',
  };
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    await db.client.send(
      new PutItemCommand({
        TableName: testTableNames.webhookEndpoints,
        Item: {
          subscriptionId: { S: 'ws_bundle' },
          url: { S: `${receiver.endpoint}/hook` },
          events: { L: [{ S: 'inventory.changed' }] },
          secret: { S: secret },
          createdAt: { S: '2026-11-26T08:00:00.000Z' },
        },
      }),
    );
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** The SQS event of one delivery message for `ws_bundle`, received `receiveCount` times. */
  const sqsEvent = (receiveCount: number) => ({
    Records: [
      {
        messageId: 'm-1',
        receiptHandle: 'r-1',
        body: `{"subscriptionId":"ws_bundle","eventId":"${eventId}","type":"inventory.changed","timestamp":"${occurredAt}","data":${data}}`,
        attributes: { ApproximateReceiveCount: String(receiveCount) },
        messageAttributes: {},
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:webhook-slow-lane',
        awsRegion: 'us-east-1',
      },
    ],
  });

  it('POSTs the payload with a signature the standardwebhooks package verifies', async () => {
    receiver.requests.length = 0;
    receiver.answer = { status: 204 };
    const { outcome } = await invokeBundle('deliverWebhooks', sqsEvent(1), env);
    expect(resultOf(outcome)).toStrictEqual({ batchItemFailures: [] });
    const [request, ...others] = receiver.requests;
    expect(others).toStrictEqual([]);
    // The exact payload, ids digit for digit; the signature is over that text.
    const payload = `{"type":"inventory.changed","timestamp":"${occurredAt}","data":${data}}`;
    expect(request?.body).toBe(payload);
    expect(request?.headers['webhook-id']).toBe(eventId);
    expect(
      new Webhook(secret).verify(request?.body ?? '', request?.headers as Record<string, string>),
    ).toStrictEqual(JSON.parse(payload));
  });

  it('after the last delay keeps the failure with its status (util-dynamodb marshalling in the bundle)', async () => {
    receiver.requests.length = 0;
    receiver.answer = { status: 503 };
    const { outcome } = await invokeBundle('deliverWebhooks', sqsEvent(2), env);
    expect(resultOf(outcome)).toStrictEqual({ batchItemFailures: [] });
    expect(receiver.requests).toHaveLength(1);
    const { Item } = await db.client.send(
      new GetItemCommand({
        TableName: testTableNames.webhookFailures,
        Key: { subscriptionId: { S: 'ws_bundle' }, eventId: { S: eventId } },
      }),
    );
    expect(Item).toMatchObject({
      type: { S: 'inventory.changed' },
      data: { S: data },
      attempts: { N: '2' },
      lastStatus: { N: '503' },
      lastError: { S: 'HTTP 503' },
    });
  });
});

describe('the trimmed fanOutWebhooks bundle, fed by the change-events queue', () => {
  let deliveries: LocalQueueFixture;
  let changeEvents: ChangeEventsQueue;
  beforeAll(async () => {
    deliveries = await startLocalQueue({ name: 'webhook-deliveries', credentials: db.credentials });
    changeEvents = await startChangeEventsQueue(db.credentials);
    await db.client.send(
      new PutItemCommand({
        TableName: testTableNames.webhookEndpoints,
        Item: {
          subscriptionId: { S: 'ws_orders' },
          url: { S: 'http://127.0.0.1:9/hook' },
          events: { L: [{ S: 'order.changed' }] },
          secret: { S: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
          createdAt: { S: '2026-11-26T08:00:00.000Z' },
        },
      }),
    );
  });
  afterAll(async () => {
    await changeEvents?.close();
    await deliveries?.close();
  });

  it('reads the bus event from the queue message with exact ids and sends the exact delivery message', async () => {
    const records = await changeEvents.publish([{ type: 'order.changed', data: placedOrderChange }]);

    const { outcome } = await invokeBundle(
      'fanOutWebhooks',
      { Records: records },
      {
        [tables.webhookEndpoints.env]: testTableNames.webhookEndpoints,
        WEBHOOK_DELIVERY_QUEUE_URL: deliveries.url,
        WEBHOOK_SLOW_LANE_QUEUE_URL: deliveries.url.replace(/[^/]+$/, 'webhook-slow-lane'),
        AWS_ENDPOINT_URL_SQS: deliveries.endpoint,
      },
    );

    expect(resultOf(outcome)).toStrictEqual({ batchItemFailures: [] });
    const received = await deliveries.receiveAll();
    await deliveries.remove(received);
    expect(received.map((m) => m.Body)).toStrictEqual([
      '{"subscriptionId":"ws_orders","eventId":"order.1795685400123000001.placed","type":"order.changed","timestamp":"2026-11-26T09:31:00.000Z","data":{"orderId":1795685400123000001,"occurredAt":"2026-11-26T09:31:00.000Z","status":{"from":null,"to":"placed"},"order":{"id":1795685400123000001,"petId":-9223372036854775808,"quantity":1,"status":"placed","complete":false}}}',
    ]);
  });
});
