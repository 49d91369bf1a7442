/**
 * `npm start` stopped during bursts of changes loses no accepted delivery (docs/contract.md "History and
 * events": nothing accepted is lost when `npm start` stops or crashes; local-aws/behaviour.md Q9). Two webhook
 * subscribers (the webhook tool) take every change of six pets; bursts of PATCHes run while `npm start` is
 * killed with SIGKILL (or stopped with SIGTERM) and started again on the same data folder. At the end every
 * change the history holds, and so every PATCH answered 200, has reached each subscriber at least once
 * (deduplicated by `webhook-id`, as receivers do), and no delivery sits in `failures` or a dead-letter queue.
 *
 * The served staging stack has its queues' visibility timeout shortened to 30 s (from six times the function's
 * timeout), so that the deliveries in flight at a SIGKILL come back within the test; failed deliveries are
 * retried after 1 s (`WEBHOOK_RETRY_DELAYS`).
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { dataFolderCredentials, eventsAndQueuesEndpoint, type Template } from 'local-aws';
import { temporaryDir } from 'local-aws/testing';
import { beforeAll, expect, test, vi } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { webhookEnv } from '#lib/webhooks/webhook-env.ts';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { patchedAssembly, withVisibilityTimeout } from '#test/support/patched-assembly.ts';
import { callApi, type ServerProcess, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

const apiKey = generateApiKey();
const servers: ServerProcess[] = [];
const receivers: WebhookReceiver[] = [];
cleanUpAfterAll(
  () => Promise.all(servers.map((server) => server.stop('SIGKILL'))),
  () => Promise.all(receivers.map((receiver) => receiver.close())),
);

/**
 * Seconds a received message stays invisible in the served stack's queues: the event functions' timeout, so
 * that no message comes back while the invocation that received it may still run.
 */
const visibilityTimeoutSeconds = 30;
/** PATCHes answered in a burst before the stop is sent (the burst goes on until the server stops answering). */
const answeredBeforeStop = 24;

let assembly: string;
let served: Template;
beforeAll(async () => {
  assembly = await patchedAssembly((template) => {
    served = withVisibilityTimeout(template, visibilityTimeoutSeconds);
    return served;
  });
});

/** `npm start` on `dataDir` with the test's key (rate high enough for the bursts) and short retry delays. */
async function startServer(dataDir: string): Promise<ServerProcess> {
  const server = await startServerProcess(
    {
      DATA_DIR: dataDir,
      API_KEY: apiKey,
      API_KEY_RATE: '1000',
      [webhookEnv.retryDelays]: '1,1,1,1,1,1,1',
    },
    { assembly, timeoutMs: 60_000 },
  );
  servers.push(server);
  return server;
}

/** One API request with the test's key (see `callApi`). */
const call = (server: ServerProcess, method: string, path: string, body?: string) =>
  callApi(server, apiKey, method, path, body);

/**
 * `npm run webhooks -- ...args` on the running server's data folder; run again, as an operator would, when it
 * fails (its DynamoDB requests time out after 2 s on a loaded machine; an `add` run twice would only repeat
 * deliveries, which the assertions deduplicate).
 */
async function webhooks(dataDir: string, ...args: string[]) {
  let result: Awaited<ReturnType<typeof runNode>> | undefined;
  for (let run = 1; run <= 3 && result?.code !== 0; run += 1) {
    result = await runNode(scripts.webhooks, args, {
      env: childEnv({ DATA_DIR: dataDir }),
      timeoutMs: 60_000,
    });
  }
  expect(result?.code, result?.stderr).toBe(0);
  return result as Awaited<ReturnType<typeof runNode>>;
}

/** Per pet, the quantities whose PATCH was answered 200 (each PATCH sets a new quantity: one change each). */
type Accepted = Map<string, number[]>;

/**
 * PATCHes each pet with quantity after quantity, the pets in parallel, until the server stops answering;
 * once `answeredBeforeStop` have been answered, `stop` is called (while the burst goes on); resolves once the
 * server has stopped.
 */
async function burst(server: ServerProcess, accepted: Accepted, stop: () => Promise<unknown>): Promise<void> {
  let answered = 0;
  let stopping: Promise<unknown> | undefined;
  await Promise.all(
    [...accepted.keys()].map(async (petId) => {
      const quantities = accepted.get(petId) as number[];
      for (;;) {
        const quantity = (quantities.at(-1) ?? 0) + 1;
        const { status } = await call(server, 'PATCH', `/inventory/${petId}`, `{"quantity": ${quantity}}`);
        if (status !== 200) return;
        quantities.push(quantity);
        answered += 1;
        if (answered === answeredBeforeStop) stopping = stop();
      }
    }),
  );
  await (stopping ?? stop());
}

/** The pet's history records (`sequence` and the quantity set), or undefined when the server did not answer 200. */
async function historyOf(server: ServerProcess, petId: string) {
  const { status, text } = await call(server, 'GET', `/inventory/${petId}/history?limit=1000`);
  return status === 200 ? (JSON.parse(text) as { sequence: number; quantity: { to: number } }[]) : undefined;
}

/**
 * Messages in each queue of the served stack that no event source mapping reads (the dead-letter queues and
 * the stream mappings' failure queue), by local queue name, asked of the running server's SQS endpoint.
 */
async function unreadQueues(dataDir: string): Promise<Record<string, number>> {
  const resources = Object.entries(served.Resources);
  const read = new Set(
    resources.flatMap(([, resource]) => {
      const source = resource.Properties?.EventSourceArn as { 'Fn::GetAtt'?: string[] } | undefined;
      const getAtt = source?.['Fn::GetAtt'];
      return resource.Type === 'AWS::Lambda::EventSourceMapping' && getAtt ? [getAtt[0]] : [];
    }),
  );
  const sqs = new SQSClient({
    endpoint: await eventsAndQueuesEndpoint(dataDir),
    region: 'us-east-1',
    credentials: await dataFolderCredentials(dataDir),
  });
  const counts: Record<string, number> = {};
  try {
    for (const [logicalId, resource] of resources) {
      if (resource.Type !== 'AWS::SQS::Queue' || read.has(logicalId)) continue;
      const name = String(resource.Properties?.QueueName ?? logicalId);
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }),
      );
      counts[name] =
        Number(Attributes.ApproximateNumberOfMessages) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible) +
        Number(Attributes.ApproximateNumberOfMessagesDelayed);
    }
  } finally {
    sqs.destroy();
  }
  return counts;
}

/** The distinct `webhook-id`s `receiver` got. */
const deliveredIds = (receiver: WebhookReceiver) =>
  new Set(receiver.requests.map((request) => String(request.headers['webhook-id'])));

/**
 * Every accepted change is one history record (its quantity.to), and each subscriber gets every record's id:
 * per subscriber, the history's changes it did not get, how many of the accepted changes it got and how many
 * were accepted; undefined while the history lacks an accepted change (or the server does not answer).
 */
async function deliveryOutcome(server: ServerProcess, accepted: Accepted, subscribers: WebhookReceiver[]) {
  const ids: string[] = [];
  const acceptedIds: string[] = [];
  for (const [petId, quantities] of accepted) {
    const history = await historyOf(server, petId);
    if (!history) return undefined;
    const recorded = new Set(history.map((change) => change.quantity.to));
    if (quantities.some((quantity) => !recorded.has(quantity))) return undefined;
    for (const change of history) {
      const id = `inventory.${petId}.${change.sequence}`;
      ids.push(id);
      if (quantities.includes(change.quantity.to)) acceptedIds.push(id);
    }
  }
  return subscribers.map((subscriber) => {
    const got = deliveredIds(subscriber);
    return {
      missing: ids.filter((id) => !got.has(id)),
      acceptedDelivered: acceptedIds.filter((id) => got.has(id)).length,
      accepted: acceptedIds.length,
    };
  });
}

/**
 * Runs the scenario: two subscribers, six pets created, `stops` bursts each ended by `signal` and a restart;
 * then waits (at most twice the visibility timeout plus two minutes) until the history holds every accepted
 * change and each subscriber got every change of the history.
 * @returns per subscriber, the history's changes it did not get, how many of the accepted changes it got and
 *   how many were accepted; the deliveries the webhook tool lists as `failures`; the messages left in the
 *   queues no mapping reads
 */
async function scenario(signal: 'SIGKILL' | 'SIGTERM', stops: number) {
  const dataDir = await temporaryDir(`delivery-durability-${signal}-`);
  const subscribers = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  receivers.push(...subscribers);
  let server = await startServer(dataDir);
  await Promise.all(
    subscribers.map((subscriber) => webhooks(dataDir, 'add', `${subscriber.endpoint}/hooks`)),
  );

  const petIds = ['9101', '9102', '9103', '9104', '9105', '9106'];
  const accepted: Accepted = new Map(petIds.map((petId) => [petId, [0]]));
  for (const petId of petIds) {
    const created = await call(
      server,
      'POST',
      '/pets',
      `{"id": ${petId}, "name": "Burst", "status": "available"}`,
    );
    expect(created.status, created.text).toBe(201);
  }
  for (let stop = 0; stop < stops; stop += 1) {
    const running = server;
    await burst(running, accepted, () => running.stop(signal, 40_000));
    server = await startServer(dataDir);
  }

  const outcome = await vi.waitFor(
    async () => {
      const outcome = await deliveryOutcome(server, accepted, subscribers);
      expect(outcome, 'the history holds every accepted change').toBeDefined();
      expect(outcome?.map((subscriber) => subscriber.missing)).toStrictEqual(subscribers.map(() => []));
      return outcome;
    },
    { timeout: (2 * visibilityTimeoutSeconds + 120) * 1000, interval: 500 },
  );
  const failures = JSON.parse((await webhooks(dataDir, 'failures', '--json')).stdout) as unknown[];
  const deadLetters = await unreadQueues(dataDir);
  return { subscribers: outcome as NonNullable<typeof outcome>, failures, deadLetters };
}

// Side by side: each scenario has its own data folder, server and subscribers, and spends much of its time
// waiting (restarts, the visibility timeout of the deliveries a SIGKILL cut off).
test.concurrent.each([
  { signal: 'SIGKILL' as const, stops: 8 },
  { signal: 'SIGTERM' as const, stops: 4 },
])(
  '$signal of npm start $stops times during bursts: every accepted change reaches every subscriber',
  {
    timeout: 900_000,
  },
  async ({ signal, stops }) => {
    const { subscribers, failures, deadLetters } = await scenario(signal, stops);
    expect(failures).toStrictEqual([]);
    expect(
      Object.values(deadLetters).every((count) => count === 0),
      JSON.stringify(deadLetters),
    ).toBe(true);
    // Each subscriber got every accepted change, and every other change of the history too.
    for (const subscriber of subscribers) {
      expect(subscriber).toStrictEqual({
        missing: [],
        acceptedDelivered: subscriber.accepted,
        accepted: subscriber.accepted,
      });
    }
  },
);

test('a SIGTERM hands the deliveries its pollers hold back to their queues: after a restart every change arrives within seconds, not after the 180 s visibility timeout', {
  timeout: 300_000,
}, async () => {
  const dataDir = await temporaryDir('clean-stop-');
  const subscriber = await startWebhookReceiver();
  receivers.push(subscriber);
  // The stack as synthesized: its delivery queues' visibility timeout is 180 s.
  const start = async () => {
    const server = await startServerProcess(
      { DATA_DIR: dataDir, API_KEY: apiKey, API_KEY_RATE: '1000' },
      { timeoutMs: 60_000 },
    );
    servers.push(server);
    return server;
  };
  const first = await start();
  await webhooks(dataDir, 'add', `${subscriber.endpoint}/hooks`);
  const accepted: Accepted = new Map(['9201', '9202', '9203', '9204'].map((petId) => [petId, [0]]));
  for (const petId of accepted.keys()) {
    const created = await call(
      first,
      'POST',
      '/pets',
      `{"id": ${petId}, "name": "Stop", "status": "available"}`,
    );
    expect(created.status, created.text).toBe(201);
  }
  await burst(first, accepted, () => first.stop('SIGTERM', 40_000));

  const second = await start();
  await vi.waitFor(
    async () => {
      const [outcome] = (await deliveryOutcome(second, accepted, [subscriber])) ?? [];
      expect(outcome?.missing).toStrictEqual([]);
    },
    // Seconds of the event path, far from the 180 s a message held by a stopped poller would stay invisible.
    { timeout: 60_000, interval: 500 },
  );
});
