/**
 * `npm run webhooks -- ... --env staging` offline (docs/operating.md "Webhooks"): the tool resolves the webhook
 * tables and the delivery queue from the stack outputs (CloudFormation stand-in), works on real DynamoDB tables
 * named as a deployed stack names them (dynalite) and sends to the queue URL of the output (a real local queue
 * of local-api named as the stack names it, test/support/local-queue.ts, read back with ReceiveMessage).
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { startTestStore, type TestStore, temporaryDir } from '@pet-store/local-aws/testing';
import { beforeAll, describe, expect, test } from 'vitest';
import { ensureTables } from '#lib/admin/tables.ts';
import { type ChildResult, operatorEnv, runNode, scripts } from '#test/support/child-process.ts';
import {
  type CloudFormationStandIn,
  startCloudFormationStandIn,
} from '#test/support/cloudformation-stand-in.ts';
import { type LocalQueueFixture, startLocalQueue } from '#test/support/local-queue.ts';
import { failureRecord, putItem, scanTable } from '#test/support/raw-tables.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { storeVariables } from '#test/support/test-dynamodb.ts';

const stagingTables = {
  inventory: 'InventoryService-staging-InventoryTable-ABC123',
  apiKeys: 'InventoryService-staging-ApiKeysTable-XYZ789',
  webhookEndpoints: 'InventoryService-staging-WebhookSubscriptionsTable-S1',
  webhookFailures: 'InventoryService-staging-WebhookFailuresTable-F1',
  webhookAttempts: 'InventoryService-staging-WebhookAttemptsTable-A1',
};

let db: TestStore;
let cloudFormation: CloudFormationStandIn;
let queue: LocalQueueFixture;
let workDir: string;
const queueName = 'InventoryService-staging-WebhookDeliveryQueue-Q1';
/** The stack output's queue URL, in AWS's form (`<endpoint>/<account>/<name>`) on the local endpoint. */
const queueUrl = () => `${queue.endpoint}/123456789012/${queueName}`;

beforeAll(async () => {
  db = await startTestStore();
  await ensureTables(db.client, stagingTables);
  // The operator's credentials are the ones dynalite takes; the local endpoint takes the same.
  queue = await startLocalQueue({ name: queueName, credentials: db.credentials });
  cloudFormation = await startCloudFormationStandIn([
    {
      name: 'InventoryService-staging',
      outputs: {
        InventoryTableName: stagingTables.inventory,
        ApiKeysTableName: stagingTables.apiKeys,
        WebhookSubscriptionsTableName: stagingTables.webhookEndpoints,
        WebhookFailuresTableName: stagingTables.webhookFailures,
        WebhookAttemptsTableName: stagingTables.webhookAttempts,
        WebhookDeliveryQueueUrl: queueUrl(),
      },
    },
    {
      name: 'InventoryService-production',
      outputs: {
        InventoryTableName: 'InventoryService-production-InventoryTable-P1',
        ApiKeysTableName: 'InventoryService-production-ApiKeysTable-P2',
      },
    },
  ]);
  workDir = await temporaryDir('webhooks-deployed-cwd-');
});
cleanUpAfterAll(
  () => cloudFormation?.close(),
  () => queue?.close(),
  () => db?.close(),
);

/** A tool run by an operator with AWS credentials, the endpoints pointing at the stand-ins and dynalite. */
function webhooks(...args: string[]): Promise<ChildResult> {
  const env = operatorEnv(workDir, {
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
    AWS_ENDPOINT_URL_SQS: queue.endpoint,
    AWS_REGION: 'us-east-1',
    ...storeVariables(db),
  });
  return runNode(scripts.webhooks, args, { env, cwd: workDir });
}

describe('webhooks --env staging', () => {
  test('add refuses http and private addresses (public-https) and stores an https URL in the stack table', async () => {
    expect(await webhooks('add', 'http://127.0.0.1:8080/', '--env', 'staging')).toStrictEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: 'webhooks: http://127.0.0.1:8080/: webhook URLs must be https\n',
    });
    expect((await webhooks('add', 'https://[fd00:ec2::254]/', '--env', 'staging')).stderr).toBe(
      'webhooks: https://[fd00:ec2::254]/: fd00:ec2::254 is not a public address (uniqueLocal)\n',
    );

    // A host name is resolved (here by the system resolver) and refused when an address is not public.
    expect((await webhooks('add', 'https://localhost:8443/', '--env', 'staging')).stderr).toMatch(
      /^webhooks: localhost resolves to a refused address: (127\.0\.0\.1|::1) is not a public address \(loopback\)/,
    );

    const added = await webhooks('add', 'https://93.184.215.14/hooks', '--env', 'staging');

    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^whsec_\S{32}\n$/);
    const stored = await scanTable(db.client, stagingTables.webhookEndpoints);
    expect(stored.map((s) => s.url?.S)).toStrictEqual(['https://93.184.215.14/hooks']);
  });

  test('redrive sends to the queue URL of the stack output and deletes from the stack failures table', async () => {
    const [endpoint] = await scanTable(db.client, stagingTables.webhookEndpoints);
    const endpointId = endpoint?.subscriptionId?.S ?? '';
    // An order approval as the delivery keeps it: its record's exact JSON, the order id past 2^53 and the pet
    // id the int64 minimum written digit for digit.
    const data =
      '{"orderId":1795685400123000001,"occurredAt":"2026-11-25T10:00:00.000Z","status":{"from":"placed","to":"approved"},"order":{"id":1795685400123000001,"petId":-9223372036854775808,"quantity":2,"status":"approved","complete":false},"keyId":"3f2a9c0d1b7e"}';
    const kept = { attempts: 8, lastError: 'no response within 10 s', failedAt: '2026-11-26T14:00:00.000Z' };
    const event: [string, string, string] = ['order.changed', '2026-11-25T10:00:00.000Z', data];
    const failure = failureRecord(endpointId, 'order.1795685400123000001.approved', event, kept);
    await putItem(db.client, stagingTables.webhookFailures, failure);

    const result = await webhooks('redrive', endpointId, '--env', 'staging');

    expect(result.stdout).toBe(`Redrove 1 failed deliveries of ${endpointId} to the delivery queue.\n`);
    const received = await queue.receiveAll();
    expect(received.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toStrictEqual([
      [
        `{"subscriptionId":"${endpointId}","eventId":"order.1795685400123000001.approved","type":"order.changed","timestamp":"2026-11-25T10:00:00.000Z","data":${data}}`,
        '1',
      ],
    ]);
    await queue.remove(received);
    expect(await scanTable(db.client, stagingTables.webhookFailures)).toStrictEqual([]);
  });

  test("attempts and failures read the stack's attempts table: a failed attempt with its next time, at once", async () => {
    const [endpoint] = await scanTable(db.client, stagingTables.webhookEndpoints);
    const endpointId = endpoint?.subscriptionId?.S ?? '';
    const attemptedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    const attempt = {
      id: `wa_${attemptedAt.getTime()}00000000000a`,
      eventId: 'order.1795685400123000001.approved',
      eventType: 'order.changed',
      attempt: 1,
      attemptedAt: attemptedAt.toISOString(),
      durationMs: 10_000,
      responseStatus: null,
      error: 'timeout',
      outcome: 'failed',
      nextAttemptAt: new Date(attemptedAt.getTime() + 15_000).toISOString(),
    };
    const { id, ...stored } = attempt;
    const expiresAt = Math.floor(attemptedAt.getTime() / 1000) + 30 * 86_400;
    await putItem(
      db.client,
      stagingTables.webhookAttempts,
      marshall({ endpointId, attemptId: id, ...stored, expiresAt }),
    );

    const listed = await webhooks('attempts', endpointId, '--json', '--env', 'staging');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toStrictEqual([attempt]);
    const failures = await webhooks('failures', '--json', '--env', 'staging');
    expect(JSON.parse(failures.stdout)).toStrictEqual([
      {
        endpoint: endpointId,
        eventId: 'order.1795685400123000001.approved',
        type: 'order.changed',
        attempts: 1,
        lastStatus: null,
        lastError: 'timeout',
        nextAttemptAt: attempt.nextAttemptAt,
        failedAt: null,
      },
    ]);
  });

  test('a stack deployed before webhooks: the tool names the missing output', async () => {
    expect(await webhooks('list', '--env', 'production')).toStrictEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr:
        'webhooks: stack InventoryService-production has no output WebhookSubscriptionsTableName: is it deployed?\n',
    });
  });
});
