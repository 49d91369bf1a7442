/**
 * The local queues across a restart of their store (behaviour.md Q9): messages kept in the embedded
 * store's LevelDB come back with what SQS keeps of them. A queued message, a delayed one, a message in flight
 * (its receive count, receipt handle and visibility timeout), a deleted one and a message moved to the
 * dead-letter queue, each as it was when the first service let go of the store without delivering anything
 * more.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { expect, test, vi } from 'vitest';
import { dataFolderCredentials } from '../common/store-credentials.ts';
import { type LocalDynamoDb, startDynamoDb } from '../dynamodb/dynamodb.ts';
import type { Template } from '../template/api-model.ts';
import { temporaryDir } from '../testing/temporary-dirs.ts';
import { type AwsFixture, awsClients, recordingFunction, startAwsFixture } from './support/aws-fixture.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

/**
 * `work` (visibility 30 s, redrive to `work-dlq` after 2 receives) and `work-dlq`; with `windowSeconds`, `work`
 * is read by a function through a mapping that gathers batches of 10 for up to that many seconds.
 */
const queuesTemplate = (recordFile: string, windowSeconds?: number): Template => ({
  Resources: {
    ...(windowSeconds !== undefined && {
      Worker: recordingFunction(recordFile),
      Mapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          EventSourceArn: { 'Fn::GetAtt': ['Work', 'Arn'] },
          FunctionName: { 'Fn::GetAtt': ['Worker', 'Arn'] },
          BatchSize: 10,
          MaximumBatchingWindowInSeconds: windowSeconds,
        },
      },
    }),
    Work: {
      Type: 'AWS::SQS::Queue',
      Properties: {
        QueueName: 'work',
        VisibilityTimeout: 30,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['WorkDlq', 'Arn'] }, maxReceiveCount: 2 },
      },
    },
    WorkDlq: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'work-dlq' } },
  },
});

let running: { store: LocalDynamoDb; fixture: AwsFixture } | undefined;
cleanUpAfterAll(async () => {
  await running?.fixture.close();
  await running?.store.close();
});

/** The embedded store on `dataDir` and the queues of {@link queuesTemplate} keeping their messages in it. */
async function start(dataDir: string, windowSeconds?: number) {
  const store = await startDynamoDb({ dataDir });
  const fixture = await startAwsFixture((recordFile) => queuesTemplate(recordFile, windowSeconds), {
    ...(store.levelDb ? { levelDb: store.levelDb } : {}),
  });
  running = { store, fixture };
  const url = (logicalId: string) => fixture.aws.resourceValue(logicalId) as string;
  const receive = async (logicalId: string, visibilityTimeout?: number) =>
    (
      await fixture.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url(logicalId),
          MaxNumberOfMessages: 10,
          MessageSystemAttributeNames: ['All'],
          ...(visibilityTimeout === undefined ? {} : { VisibilityTimeout: visibilityTimeout }),
        }),
      )
    ).Messages ?? [];
  const counts = async (logicalId: string) => {
    const { Attributes } = await fixture.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url(logicalId), AttributeNames: ['All'] }),
    );
    return {
      visible: Number(Attributes?.ApproximateNumberOfMessages),
      notVisible: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
      delayed: Number(Attributes?.ApproximateNumberOfMessagesDelayed),
    };
  };
  return { fixture, url, receive, counts };
}

/** Lets go of the queues and the store (their pollers end, the store is flushed), as the next start finds them. */
async function stop() {
  await running?.fixture.close();
  await running?.store.close();
  running = undefined;
}

test('queued, delayed, in-flight, deleted and dead-lettered messages are as they were after a restart', async () => {
  const dataDir = await temporaryDir('queue-durability-');
  const first = await start(dataDir);
  const send = (body: string, delaySeconds?: number) =>
    first.fixture.sqs.send(
      new SendMessageCommand({
        QueueUrl: first.url('Work'),
        MessageBody: body,
        ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }),
      }),
    );
  // `poison` is received twice (visible again at once), so the next receive moves it to the dead-letter queue.
  const poison = await send('poison');
  expect((await first.receive('Work', 0)).map((m) => m.Body)).toStrictEqual(['poison']);
  expect((await first.receive('Work', 0)).map((m) => m.Body)).toStrictEqual(['poison']);
  expect(await first.receive('Work')).toStrictEqual([]);
  expect(await first.counts('WorkDlq')).toStrictEqual({ visible: 1, notVisible: 0, delayed: 0 });
  // `in flight` is received and not deleted; `done` is received and deleted; `queued` waits; `delayed` too.
  const inFlight = await send('in flight');
  const [received] = await first.receive('Work');
  expect(received?.MessageId).toBe(inFlight.MessageId);
  await send('done');
  const [done] = await first.receive('Work');
  expect(done?.Body).toBe('done');
  await first.fixture.sqs.send(
    new DeleteMessageCommand({ QueueUrl: first.url('Work'), ReceiptHandle: done?.ReceiptHandle }),
  );
  const queued = await send('queued');
  await send('delayed', 900);
  await stop();

  const second = await start(dataDir);
  expect(await second.counts('Work')).toStrictEqual({ visible: 1, notVisible: 1, delayed: 1 });
  const [again] = await second.receive('Work');
  expect({
    id: again?.MessageId,
    body: again?.Body,
    receives: again?.Attributes?.ApproximateReceiveCount,
  }).toStrictEqual({ id: queued.MessageId, body: 'queued', receives: '1' });
  // The message in flight keeps its receipt handle and its visibility: ended now, it is received a second time.
  await second.fixture.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: second.url('Work'),
      ReceiptHandle: received?.ReceiptHandle,
      VisibilityTimeout: 0,
    }),
  );
  const [redelivered] = await second.receive('Work');
  expect({
    id: redelivered?.MessageId,
    body: redelivered?.Body,
    receives: redelivered?.Attributes?.ApproximateReceiveCount,
    firstReceived: redelivered?.Attributes?.ApproximateFirstReceiveTimestamp,
  }).toStrictEqual({
    id: inFlight.MessageId,
    body: 'in flight',
    receives: '2',
    firstReceived: received?.Attributes?.ApproximateFirstReceiveTimestamp,
  });
  const [deadLetter] = await second.receive('WorkDlq');
  expect({ id: deadLetter?.MessageId, body: deadLetter?.Body }).toStrictEqual({
    id: poison.MessageId,
    body: 'poison',
  });
  expect(await second.counts('Work')).toStrictEqual({ visible: 0, notVisible: 2, delayed: 1 });
});

test('a stop hands the messages its mapping holds and has not invoked back to their queue (visible at once)', async () => {
  const dataDir = await temporaryDir('queue-release-');
  const first = await start(dataDir, 20);
  for (const body of ['one', 'two', 'three']) {
    await first.fixture.sqs.send(new SendMessageCommand({ QueueUrl: first.url('Work'), MessageBody: body }));
  }
  // The mapping holds them while it gathers its batch (20 s), invisible for the queue's 30 s.
  await expect
    .poll(() => first.counts('Work'), { timeout: 10_000 })
    .toStrictEqual({ visible: 0, notVisible: 3, delayed: 0 });
  await stop();
  expect(await first.fixture.recorded()).toStrictEqual([]);

  // Well within the visibility timeout: a restart finds them visible, each received once so far.
  const second = await start(dataDir);
  expect(await second.counts('Work')).toStrictEqual({ visible: 3, notVisible: 0, delayed: 0 });
  const again = await second.receive('Work');
  expect(
    again.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount]).sort(),
  ).toStrictEqual([
    ['one', '2'],
    ['three', '2'],
    ['two', '2'],
  ]);
});

test('M6: a stop lets the batch being invoked finish: its message is deleted, not delivered again', async () => {
  const dataDir = await temporaryDir('queue-stop-');
  const first = await start(dataDir, 0);
  // The handler records the message, then takes 5 s over it.
  await first.fixture.sqs.send(new SendMessageCommand({ QueueUrl: first.url('Work'), MessageBody: 'slow' }));
  await first.fixture.waitFor((line) => line.record?.body === 'slow');
  await stop();

  // Well within the visibility timeout: the message is gone, neither visible nor in flight.
  const second = await start(dataDir);
  expect(await second.counts('Work')).toStrictEqual({ visible: 0, notVisible: 0, delayed: 0 });
});

test('Q9: a SIGKILL of the serving process loses no accepted message: the queued one and the one in flight come back', async () => {
  const dataDir = await temporaryDir('queue-kill-');
  const serving = fileURLToPath(new URL('./support/queue-process.ts', import.meta.url));
  const child = spawn(process.execPath, [serving], {
    env: { ...process.env, STORE_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'close');
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  try {
    await vi.waitFor(() => expect(stdout).toMatch(/^ready /m), { timeout: 60_000, interval: 50 });
    const endpoint = /^ready (\S+)/m.exec(stdout)?.[1] as string;
    const { sqs, events } = awsClients(endpoint, await dataFolderCredentials(dataDir));
    const queueUrl = `${endpoint}/000000000000/work`;
    for (const body of ['one', 'two'])
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1 }),
    );
    const inFlight = received.Messages?.[0]?.Body;
    sqs.destroy();
    events.destroy();
    expect(['one', 'two']).toContain(inFlight);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }

  // Well within the visibility timeout: one message queued, the other still in flight.
  const second = await start(dataDir);
  expect(await second.counts('Work')).toStrictEqual({ visible: 1, notVisible: 1, delayed: 0 });
});
