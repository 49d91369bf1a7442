/**
 * The local EventBridge bus (behaviour.md V1-V6): PutEvents through @aws-sdk/client-eventbridge, a
 * rule's pattern, a Lambda target invoked asynchronously with the exact event envelope and retried twice, an
 * SQS target, and the endpoint's signature check.
 */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newStoreCredentials } from '../common/store-credentials.ts';
import { prepareEventsAndQueues } from '../events-and-queues.ts';
import type { Template } from '../template/api-model.ts';
import { upload } from '../testing/raw-upload.ts';
import { type AwsFixture, awsClients, recordingFunction, startAwsFixture } from './support/aws-fixture.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

cleanUpAfterAll();

/**
 * A bus `example-events`, a rule on it for `example.shop` stock changes to a function (through an alias) and
 * a queue, and a rule for `no-retry` events to a function whose EventInvokeConfig allows no retry.
 */
function busTemplate(recordFile: string): Template {
  return {
    Resources: {
      Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'example-events' } },
      Target: recordingFunction(recordFile),
      TargetAlias: {
        Type: 'AWS::Lambda::Alias',
        Properties: { FunctionName: { Ref: 'Target' }, Name: 'live' },
      },
      Copies: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'copies' } },
      NoRetry: recordingFunction(recordFile),
      NoRetryConfig: {
        Type: 'AWS::Lambda::EventInvokeConfig',
        Properties: { FunctionName: { Ref: 'NoRetry' }, Qualifier: '$LATEST', MaximumRetryAttempts: 0 },
      },
      NoRetryRule: {
        Type: 'AWS::Events::Rule',
        Properties: {
          EventBusName: { Ref: 'Bus' },
          EventPattern: { 'detail-type': ['no-retry'] },
          Targets: [{ Id: 'fn', Arn: { 'Fn::GetAtt': ['NoRetry', 'Arn'] } }],
        },
      },
      Rule: {
        Type: 'AWS::Events::Rule',
        Properties: {
          EventBusName: { Ref: 'Bus' },
          EventPattern: {
            source: ['example.shop'],
            'detail-type': ['stock.changed'],
            detail: { reason: [{ 'anything-but': 'import' }], itemId: [{ prefix: '9' }] },
          },
          State: 'ENABLED',
          Targets: [
            { Id: 'fn', Arn: { Ref: 'TargetAlias' } },
            { Id: 'queue', Arn: { 'Fn::GetAtt': ['Copies', 'Arn'] } },
          ],
        },
      },
    },
  };
}

let fixture: AwsFixture;
beforeAll(async () => {
  fixture = await startAwsFixture(busTemplate);
});
afterAll(async () => {
  await fixture?.close();
});

/**
 * Puts a stock event whose function fails (so it is retried on the fixture's delays) and waits until its
 * function has run `attempts` times: a barrier after which any retry scheduled before the put has run too.
 */
async function failingMarkerAttempts(attempts: number): Promise<void> {
  const answer = await putStockEvent({ itemId: '9099', reason: 'arrival', fail: true });
  const markerId = answer.Entries?.[0]?.EventId;
  await fixture.waitFor((l) => (l.event as { id?: string })?.id === markerId, attempts);
}

/** Puts one stock event on the fixture's bus; the PutEvents answer. */
function putStockEvent(detail: Record<string, unknown>, source = 'example.shop') {
  return fixture.events.send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: 'example-events',
          Source: source,
          DetailType: 'stock.changed',
          Detail: JSON.stringify(detail),
        },
      ],
    }),
  );
}

describe('PutEvents to a rule with a Lambda target', () => {
  test('the function receives the exact EventBridge envelope, with the event id PutEvents answered', async () => {
    const detail = { itemId: '9001', sequence: 1, reason: 'arrival' };
    const answer = await putStockEvent(detail);
    expect(answer.FailedEntryCount).toBe(0);
    const eventId = answer.Entries?.[0]?.EventId as string;
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    const [line] = await fixture.waitFor((l) => (l.event as { id?: string })?.id === eventId);
    const event = line?.event as Record<string, unknown>;
    expect(event).toEqual({
      version: '0',
      id: eventId,
      'detail-type': 'stock.changed',
      source: 'example.shop',
      account: '000000000000',
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      region: 'us-east-1',
      resources: [],
      detail,
    });
    expect(Math.abs(Date.parse(event.time as string) - Date.now())).toBeLessThan(10_000);
  });

  test('an SQS target of the same rule gets the event as JSON', async () => {
    const detail = { itemId: '9002', sequence: 1, reason: 'created' };
    const answer = await putStockEvent(detail);
    const eventId = answer.Entries?.[0]?.EventId;
    const queueUrl = fixture.aws.resourceValue('Copies') as string;
    const received = await fixture.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }),
    );
    const bodies = (received.Messages ?? []).map((message) => JSON.parse(message.Body as string));
    expect(bodies).toContainEqual(
      expect.objectContaining({
        id: eventId,
        source: 'example.shop',
        'detail-type': 'stock.changed',
        detail,
      }),
    );
  });

  test("an SQS target's body carries the detail's numbers digit for digit, an int64 past 2^53 too", async () => {
    const detailText =
      '{"itemId":"9003","reason":"arrival","orderId":-9223372036854775808,"sequence":9007199254740993}';
    const answer = await fixture.events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: 'example-events',
            Source: 'example.shop',
            DetailType: 'stock.changed',
            Detail: detailText,
          },
        ],
      }),
    );
    const eventId = answer.Entries?.[0]?.EventId as string;
    const queueUrl = fixture.aws.resourceValue('Copies') as string;
    let body: string | undefined;
    for (let attempt = 0; attempt < 5 && body === undefined; attempt++) {
      const received = await fixture.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      body = received.Messages?.map((message) => message.Body as string).find((text) =>
        text.includes(eventId),
      );
    }
    expect(body?.slice(-detailText.length - 11)).toBe(`,"detail":${detailText}}`);
  });

  test('events the pattern does not match are not delivered (other source, anything-but, prefix)', async () => {
    const marker = { itemId: '9003', reason: 'arrival', sequence: 7 };
    const misses = [
      putStockEvent({ ...marker, sequence: 4 }, 'someone-else'),
      putStockEvent({ ...marker, sequence: 5, reason: 'import' }),
      putStockEvent({ ...marker, sequence: 6, itemId: '1003' }),
    ];
    for (const miss of await Promise.all(misses)) expect(miss.FailedEntryCount).toBe(0);
    // A matching event put after them: once it arrived, the earlier ones would have too.
    const hit = await putStockEvent(marker);
    await fixture.waitFor((l) => (l.event as { id?: string })?.id === hit.Entries?.[0]?.EventId);
    const seen = (await fixture.recorded()).flatMap((l) => {
      const detail = (l.event as { detail?: { itemId?: string; sequence?: number } } | undefined)?.detail;
      return detail?.sequence && detail.sequence >= 4 && detail.sequence <= 7 ? [detail.sequence] : [];
    });
    expect(seen).toEqual([7]);
  });

  test('PutEvents answers before the function has run, and a failing function is retried twice (3 attempts)', async () => {
    const started = Date.now();
    const answer = await putStockEvent({ itemId: '9004', reason: 'arrival', fail: true });
    const eventId = answer.Entries?.[0]?.EventId;
    const attempts = await fixture.waitFor((l) => (l.event as { id?: string })?.id === eventId, 3);
    expect(attempts[0]?.at).toBeGreaterThanOrEqual(started);
    // A barrier, no fixed wait: a failing marker put after the third attempt is retried on the same delays, so
    // once its own third attempt ran, a fourth attempt of the first would have run before it.
    await failingMarkerAttempts(3);
    const all = (await fixture.recorded()).filter((l) => (l.event as { id?: string })?.id === eventId);
    expect(all).toHaveLength(3);
    expect((all[1]?.at as number) - (all[0]?.at as number)).toBeGreaterThanOrEqual(190);
  });
});

test('an EventInvokeConfig with MaximumRetryAttempts 0: a failing function runs once', async () => {
  const answer = await fixture.events.send(
    new PutEventsCommand({
      Entries: [
        { EventBusName: 'example-events', Source: 'test', DetailType: 'no-retry', Detail: '{"fail":true}' },
      ],
    }),
  );
  const eventId = answer.Entries?.[0]?.EventId;
  await fixture.waitFor((l) => (l.event as { id?: string })?.id === eventId);
  // A barrier: a retry would follow on the fixture's delay, before a failing marker put now is retried.
  await failingMarkerAttempts(2);
  const all = (await fixture.recorded()).filter((l) => (l.event as { id?: string })?.id === eventId);
  expect(all).toHaveLength(1);
});

describe('PutEvents refusals', () => {
  test('an entry whose Detail is not a JSON object fails alone, with its error code', async () => {
    const answer = await fixture.events.send(
      new PutEventsCommand({
        Entries: [
          { EventBusName: 'example-events', Source: 'example.shop', DetailType: 'x', Detail: '[1]' },
          { EventBusName: 'example-events', Source: 'example.shop', DetailType: 'x', Detail: '{}' },
        ],
      }),
    );
    expect(answer.FailedEntryCount).toBe(1);
    expect(answer.Entries?.[0]).toEqual({
      ErrorCode: 'MalformedDetail',
      ErrorMessage: 'Detail is malformed.',
    });
    expect(answer.Entries?.[1]?.EventId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('a bus the template lacks is ResourceNotFoundException', async () => {
    const error = await fixture.events
      .send(
        new PutEventsCommand({
          Entries: [{ EventBusName: 'nope', Source: 'example.shop', DetailType: 'x', Detail: '{}' }],
        }),
      )
      .catch((caught: Error) => caught);
    expect(error).toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Event bus nope does not exist.',
    });
  });

  test('a request signed with other credentials is refused (403) and delivers nothing', async () => {
    const other = awsClients(fixture.aws.endpoint, newStoreCredentials());
    const wrongSecret = awsClients(fixture.aws.endpoint, {
      accessKeyId: fixture.credentials.accessKeyId,
      secretAccessKey: 'not-the-secret',
    });
    const entry = {
      EventBusName: 'example-events',
      Source: 'example.shop',
      DetailType: 'stock.changed',
      // A detail the rule matches: accepted, it would reach the function.
      Detail: '{"itemId":"9005","reason":"arrival"}',
    };
    /** What the bus answers `clients`' PutEvents of `entry`: the error it throws. */
    const refusalOf = (clients: typeof other) =>
      clients.events.send(new PutEventsCommand({ Entries: [entry] })).catch((e: Error) => e);
    const forbidden = { $metadata: { httpStatusCode: 403 } };
    expect(await refusalOf(other)).toMatchObject({ name: 'UnrecognizedClientException', ...forbidden });
    expect(await refusalOf(wrongSecret)).toMatchObject({ name: 'InvalidSignatureException', ...forbidden });
    const unsigned = await fetch(fixture.aws.endpoint, {
      method: 'POST',
      headers: { 'X-Amz-Target': 'AWSEvents.PutEvents', 'Content-Type': 'application/x-amz-json-1.1' },
      body: JSON.stringify({ Entries: [entry] }),
    });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toEqual({
      __type: 'MissingAuthenticationTokenException',
      message: 'Request is missing Authentication Token',
    });
    for (const client of [other, wrongSecret]) {
      client.events.destroy();
      client.sqs.destroy();
    }
    // The marker: an event of the fixture's own clients, put after the refusals, reaches the function.
    const marker = await putStockEvent({ itemId: '9006', reason: 'arrival' });
    await fixture.waitFor((l) => (l.event as { id?: string })?.id === marker.Entries?.[0]?.EventId);
    const seen = (await fixture.recorded()).filter(
      (l) => (l.event as { detail?: { itemId?: string } } | undefined)?.detail?.itemId === '9005',
    );
    expect(seen).toEqual([]);
  });

  test('30 unsigned 15 MB bodies are refused from their headers (403), none read to its end (README.md "Request bodies before credentials")', async () => {
    const port = new URL(fixture.aws.endpoint).port;
    const bodyBytes = 15 * 1024 * 1024;
    const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: AWSEvents.PutEvents\r\nContent-Length: ${bodyBytes}\r\n`;
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () => upload(Number(port), head, bodyBytes)),
    );
    for (const { status, body, sent } of outcomes) {
      expect([status, JSON.parse(body).__type]).toEqual([403, 'MissingAuthenticationTokenException']);
      expect(sent).toBeLessThan(bodyBytes);
    }
  }, 60_000);

  test('a web page is refused: an Origin header or a preflight gets 403 without CORS headers', async () => {
    for (const init of [
      { method: 'POST', headers: { Origin: 'https://example.com' } },
      { method: 'OPTIONS', headers: {} },
    ]) {
      const response = await fetch(fixture.aws.endpoint, init);
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      await response.arrayBuffer();
    }
  });
});

describe('rules the local bus cannot serve are refused at load', () => {
  test.each([
    [{ detail: { quantity: [{ numeric: ['>', 0] }] } }, /numeric.*not served locally/],
    [{ source: [{ suffix: '-store' }] }, /suffix.*not served locally/],
    [{ $or: [{ source: ['a'] }, { source: ['b'] }] }, /\$or is not served locally/],
  ])('pattern %j', async (pattern, message) => {
    const template: Template = {
      Resources: {
        Rule: { Type: 'AWS::Events::Rule', Properties: { EventPattern: pattern, Targets: [] } },
      },
    };
    await expect(prepareEventsAndQueues({ template, credentials: newStoreCredentials() })).rejects.toThrow(
      message,
    );
  });
});
