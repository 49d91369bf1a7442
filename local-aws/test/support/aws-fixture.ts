/**
 * Fixture templates, handler modules and SDK clients for the local buses and queues (events-and-queues.ts):
 * each handler appends what it receives to a file, one JSON line per event or record, which a test reads.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { expect, vi } from 'vitest';
import type { LevelStore } from '../../common/level-store.ts';
import { newStoreCredentials, type StoreCredentials } from '../../common/store-credentials.ts';
import { type EventsAndQueues, prepareEventsAndQueues } from '../../events-and-queues.ts';
import type { Template } from '../../template/api-model.ts';
import { temporaryDir } from '../../testing/temporary-dirs.ts';

/**
 * A handler recording each event (`{at, event}`) and, for an SQS event, each record (`{at, record}`) before
 * acting on its body: `slow` waits 5 s, `fail-once` is reported failed on its first receive, `poison` always,
 * `throw-once` throws on its first receive; an EventBridge event whose detail has `"fail": true` throws.
 */
const recordingHandler = `import { appendFileSync } from 'node:fs';
const record = (value) => appendFileSync(process.env.RECORD_FILE, JSON.stringify({ at: Date.now(), ...value }) + '\\n');
export const handler = async (event) => {
  if (!event.Records) {
    record({ event });
    if (event.detail?.fail) throw new Error('asked to fail');
    return null;
  }
  const batchItemFailures = [];
  for (const item of event.Records) {
    record({ record: item });
    if (item.body === 'slow') await new Promise((resolve) => setTimeout(resolve, 5000));
    if (item.body === 'throw-once' && item.attributes.ApproximateReceiveCount === '1') throw new Error('asked to throw');
    if (item.body === 'poison' || (item.body === 'fail-once' && item.attributes.ApproximateReceiveCount === '1'))
      batchItemFailures.push({ itemIdentifier: item.messageId });
  }
  return { batchItemFailures };
};
`;

/** A running fixture: the local buses and queues, the clients signed for them, and what the handler saw. */
export interface AwsFixture {
  aws: EventsAndQueues;
  credentials: StoreCredentials;
  sqs: SQSClient;
  events: EventBridgeClient;
  /** Every line the handler recorded so far. */
  recorded(): Promise<{ at: number; event?: Record<string, unknown>; record?: Record<string, unknown> }[]>;
  /** Waits (up to `ms`) until `count` lines match `filter`; returns them. @throws on timeout */
  waitFor(
    filter: (line: { at: number; event?: unknown; record?: Record<string, unknown> }) => boolean,
    count?: number,
    ms?: number,
  ): Promise<{ at: number; event?: unknown; record?: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/** A function of a fixture template running the recording handler, with `Timeout` 30 s. */
export function recordingFunction(recordFile: string) {
  return {
    Type: 'AWS::Lambda::Function',
    Properties: {
      Handler: 'index.handler',
      Timeout: 30,
      Environment: { Variables: { RECORD_FILE: recordFile } },
    },
  };
}

/** The SDK clients of an endpoint, signing with `credentials`. */
export function awsClients(endpoint: string, credentials: StoreCredentials) {
  const config = { endpoint, region: 'us-east-1', credentials, maxAttempts: 1 };
  return { sqs: new SQSClient(config), events: new EventBridgeClient(config) };
}

/**
 * Starts the local buses and queues of `template(recordFile)`; every function runs the recording handler.
 * Lambda's asynchronous retries wait `asyncRetryDelaysMs` (default 200 ms, 200 ms). With `levelDb` the queues
 * keep their messages there (an embedded store's, dynamodb/dynamodb.ts), else in memory.
 */
export async function startAwsFixture(
  template: (recordFile: string) => Template,
  options: { asyncRetryDelaysMs?: number[]; levelDb?: LevelStore } = {},
): Promise<AwsFixture> {
  const dir = await temporaryDir('local-aws-');
  const module = join(dir, 'index.mjs');
  const recordFile = join(dir, 'recorded.jsonl');
  await writeFile(module, recordingHandler);
  const credentials = newStoreCredentials();
  const aws = await prepareEventsAndQueues({
    template: template(recordFile),
    credentials,
    region: 'us-east-1',
    asyncRetryDelaysMs: options.asyncRetryDelaysMs ?? [200, 200],
    ...(options.levelDb ? { levelDb: options.levelDb } : {}),
  });
  aws.start({ assemblyDir: dir, tableName: () => 'unused', overrides: {}, sourceOf: () => module });
  const { sqs, events } = awsClients(aws.endpoint, credentials);
  const recorded = async () =>
    existsSync(recordFile)
      ? (await readFile(recordFile, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  return {
    aws,
    credentials,
    sqs,
    events,
    recorded,
    waitFor(filter, count = 1, ms = 10_000) {
      return vi.waitFor(
        async () => {
          const lines = (await recorded()).filter(filter);
          expect(
            lines.length,
            `waited ${ms} ms for ${count} lines, saw ${JSON.stringify(lines)}`,
          ).toBeGreaterThanOrEqual(count);
          return lines;
        },
        { timeout: ms, interval: 50 },
      );
    },
    async close() {
      sqs.destroy();
      events.destroy();
      await aws.close();
    },
  };
}
