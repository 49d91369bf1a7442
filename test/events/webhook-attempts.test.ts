/**
 * What a webhook endpoint's owner sees and steers, end to end on the local API serving the synthesized stack
 * (docs/contract.md "History and events": what an endpoint's owner sees and steers): listWebhookAttempts lists
 * each attempt, newest first, a failed one at once with its status and next time, in pages; another key's
 * endpoint is 404; sendTestWebhook's signed `webhook.test` event, listed in the attempts, never in the events
 * list; rotateWebhookSecret's overlap of two signatures, then the new one alone; redeliverWebhook's same
 * `webhook-id` and body, its 404s and 400s; retries honour the receiver (an answer 503 with `Retry-After`,
 * seconds or an HTTP date, delays the next attempt to at least that time, and the attempt log's `nextAttemptAt`
 * shows it). Retries after 1 s otherwise (WEBHOOK_RETRY_DELAYS).
 */
import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventsEnv } from '#lib/events/changes.ts';
import { logKey } from '#lib/events/event-logs.ts';
import type { WebhookAttempt as Attempt } from '#lib/webhooks/attempt-log.ts';
import { localTableNames } from '#local/settings.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { validateResponse, validateWebhookBody } from '#test/support/openapi-validator.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi, unthrottled } from '#test/support/test-api.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '#test/support/webhook-receiver.ts';

let api: TestApi;
let receiver: WebhookReceiver;
/** The client's key and another client's, as `Bearer <key>`. */
let client: string;
let other: string;
beforeAll(async () => {
  process.env[eventsEnv.retryDelays] = '1,1,1,1,1,1,1,1';
  api = await startTestApi({ events: true });
  receiver = await startWebhookReceiver();
  client = `Bearer ${await storeNewKey(api.keys, 'attempts-owner', unthrottled)}`;
  other = `Bearer ${await storeNewKey(api.keys, 'attempts-other', unthrottled)}`;
});
cleanUpAfterAll(
  () => api?.close(),
  () => receiver?.close(),
);
afterAll(() => {
  delete process.env[eventsEnv.retryDelays];
});

/** `method path` with `authorization` and a JSON body. */
function call(method: string, path: string, body?: string, authorization = client) {
  return api.request(method, path, {
    headers: {
      Authorization: authorization,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
}

/** The first page of `endpointId`'s attempts (checked against openapi.yaml). */
async function attemptsOf(
  endpointId: string,
  query = '',
): Promise<{ items: Attempt[]; link: string | null }> {
  const path = `/webhook-endpoints/${endpointId}/attempts${query}`;
  const response = await call('GET', path);
  expect(response.status, response.text).toBe(200);
  expect(
    validateResponse({
      method: 'GET',
      path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    }),
  ).toStrictEqual([]);
  return { items: JSON.parse(response.text).items as Attempt[], link: response.headers.get('link') };
}

const petId = '7532043913479288511';
const timeFormat = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('a failing endpoint lists each attempt at once, newest first, with its status and next time; then delivered; pages; another key gets 404', async () => {
  receiver.answer = { status: 500 };
  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}/hooks`, events: ['inventory.changed'] }),
  );
  expect(created.status, created.text).toBe(201);
  const endpointId = JSON.parse(created.text).id as string;
  const added = await call('POST', '/pets', `{"id": ${petId}, "name": "Tried", "status": "available"}`);
  expect(added.status, added.text).toBe(201);
  const eventId = `inventory.${petId}.1`;

  // The first failed attempt is listed with its status and its next time.
  await expect
    .poll(async () => (await attemptsOf(endpointId)).items.length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  const [first] = (await attemptsOf(endpointId)).items.slice(-1) as [Attempt];
  expect(first).toStrictEqual({
    id: expect.stringMatching(/^wa_\d{13}[0-9a-f]{12}$/),
    eventId,
    eventType: 'inventory.changed',
    attempt: 1,
    attemptedAt: expect.stringMatching(timeFormat),
    durationMs: expect.any(Number),
    responseStatus: 500,
    error: null,
    outcome: 'failed',
    nextAttemptAt: expect.stringMatching(timeFormat),
  });
  expect(Date.parse(first.nextAttemptAt as string)).toBeGreaterThanOrEqual(Date.parse(first.attemptedAt));

  // Once the endpoint answers, the retry is delivered and listed first, with no next time.
  receiver.answer = { status: 204 };
  await expect
    .poll(async () => (await attemptsOf(endpointId)).items[0]?.outcome, { timeout: 30_000 })
    .toBe('delivered');
  const { items } = await attemptsOf(endpointId);
  expect(items[0]).toMatchObject({ eventId, responseStatus: 204, error: null, nextAttemptAt: null });
  expect(items.map((attempt) => attempt.attempt)).toStrictEqual(
    items.map((_, index) => items.length - index),
  );
  expect(items.every((attempt) => attempt.eventId === eventId)).toBe(true);
  expect(
    items.slice(1).every((attempt) => attempt.outcome === 'failed' && attempt.responseStatus === 500),
  ).toBe(true);
  expect([...items].sort((a, b) => b.id.localeCompare(a.id))).toStrictEqual(items);

  // Pages of one, linked: following the links lists the same attempts.
  const paged: Attempt[] = [];
  let query = '?limit=1';
  for (;;) {
    const page = await attemptsOf(endpointId, query);
    paged.push(...page.items);
    if (!page.link) break;
    const next =
      /^<\/v1\/webhook-endpoints\/ws_[A-Za-z0-9_-]{16}\/attempts(\?limit=1&cursor=[A-Za-z0-9_-]+)>; rel="next"$/.exec(
        page.link,
      );
    expect(next, page.link).not.toBeNull();
    query = (next as RegExpExecArray)[1] as string;
  }
  expect(paged).toStrictEqual(items);

  // Another key's endpoint, an unknown one, and a bad cursor.
  const foreign = await call('GET', `/webhook-endpoints/${endpointId}/attempts`, undefined, other);
  expect([foreign.status, JSON.parse(foreign.text)]).toStrictEqual([
    404,
    { code: 'not_found', message: `this API key holds no webhook endpoint ${endpointId}`, status: 404 },
  ]);
  const badCursor = await call('GET', `/webhook-endpoints/${endpointId}/attempts?cursor=abc`);
  expect(badCursor.status, badCursor.text).toBe(400);
}, 120_000);

test('sendTestWebhook: 202, the endpoint receives a signed webhook.test event, listed in its attempts, never in the events list; another key gets 404', async () => {
  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}/test-hooks`, events: ['order.changed'] }),
  );
  expect(created.status, created.text).toBe(201);
  const { id: endpointId, secret } = JSON.parse(created.text) as { id: string; secret: string };

  const foreign = await call('POST', `/webhook-endpoints/${endpointId}/test`, undefined, other);
  expect([foreign.status, JSON.parse(foreign.text)]).toStrictEqual([
    404,
    { code: 'not_found', message: `this API key holds no webhook endpoint ${endpointId}`, status: 404 },
  ]);
  const path = `/webhook-endpoints/${endpointId}/test`;
  const sent = await call('POST', path);
  expect(sent.status, sent.text).toBe(202);
  expect(
    validateResponse({ method: 'POST', path, status: sent.status, headers: sent.headers, body: sent.text }),
  ).toStrictEqual([]);
  const { eventId } = JSON.parse(sent.text) as { eventId: string };
  expect(eventId).toMatch(/^test_[A-Za-z0-9_-]{16}$/);

  await expect
    .poll(() => receiver.requests.filter((request) => request.headers['webhook-id'] === eventId).length, {
      timeout: 30_000,
    })
    .toBe(1);
  const request = receiver.requests.find((candidate) => candidate.headers['webhook-id'] === eventId);
  expect(request?.path).toBe('/test-hooks');
  const payload = new Webhook(secret).verify(
    request?.body as string,
    request?.headers as Record<string, string>,
  );
  expect(payload).toStrictEqual({
    type: 'webhook.test',
    timestamp: expect.stringMatching(timeFormat),
    data: { endpointId },
  });
  expect(validateWebhookBody('webhook.test', request?.body as string)).toStrictEqual([]);

  await expect
    .poll(async () => (await attemptsOf(endpointId)).items, { timeout: 30_000 })
    .toStrictEqual([
      {
        id: expect.stringMatching(/^wa_/),
        eventId,
        eventType: 'webhook.test',
        attempt: 1,
        attemptedAt: expect.stringMatching(timeFormat),
        durationMs: expect.any(Number),
        responseStatus: 204,
        error: null,
        outcome: 'delivered',
        nextAttemptAt: null,
      },
    ]);
  // Never in the events list (which holds the events of the bus).
  const events = await api.request('GET', '/events?limit=1000', { headers: { Authorization: client } });
  expect(events.status, events.text).toBe(200);
  expect(events.text).not.toContain(eventId);
  expect(events.text).not.toContain('webhook.test');
}, 120_000);

test('rotateWebhookSecret: 200 with the new secret; deliveries verify with both secrets, then, past the overlap, with the new one only; another key gets 404', async () => {
  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}/rotated`, events: ['order.changed'] }),
  );
  expect(created.status, created.text).toBe(201);
  const { id: endpointId, secret: oldSecret } = JSON.parse(created.text) as { id: string; secret: string };

  const path = `/webhook-endpoints/${endpointId}/rotate-secret`;
  const foreign = await call('POST', path, undefined, other);
  expect([foreign.status, JSON.parse(foreign.text)]).toStrictEqual([
    404,
    { code: 'not_found', message: `this API key holds no webhook endpoint ${endpointId}`, status: 404 },
  ]);
  const rotated = await call('POST', path);
  expect(rotated.status, rotated.text).toBe(200);
  expect(
    validateResponse({
      method: 'POST',
      path,
      status: rotated.status,
      headers: rotated.headers,
      body: rotated.text,
    }),
  ).toStrictEqual([]);
  const body = JSON.parse(rotated.text) as { id: string; secret: string };
  expect(body).toStrictEqual({ id: endpointId, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/) });
  const newSecret = body.secret;
  expect(newSecret).not.toBe(oldSecret);
  const item = (await api.tableItems('webhookEndpoints')).find((s) => s.subscriptionId === endpointId);
  expect(item).toMatchObject({ secret: newSecret, previousSecret: oldSecret });
  const expiry = Date.parse(String(item?.previousSecretExpiresAt));
  expect(expiry - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
  expect(expiry - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);

  /** Sends a test event and returns the request the endpoint got for it. */
  const delivered = async () => {
    const sent = await call('POST', `/webhook-endpoints/${endpointId}/test`);
    expect(sent.status, sent.text).toBe(202);
    const { eventId } = JSON.parse(sent.text) as { eventId: string };
    await expect
      .poll(() => receiver.requests.some((request) => request.headers['webhook-id'] === eventId), {
        timeout: 30_000,
      })
      .toBe(true);
    return receiver.requests.find((request) => request.headers['webhook-id'] === eventId) as ReceivedRequest;
  };
  const verifies = (request: ReceivedRequest, secret: string) => {
    try {
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };

  const during = await delivered();
  expect(String(during.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
  expect([verifies(during, newSecret), verifies(during, oldSecret)]).toStrictEqual([true, true]);

  // Past the overlap: the stored expiry set in the past.
  await api.dynamoDb.send(
    new UpdateItemCommand({
      TableName: localTableNames().webhookEndpoints,
      Key: { subscriptionId: { S: endpointId } },
      UpdateExpression: 'SET previousSecretExpiresAt = :past',
      ExpressionAttributeValues: { ':past': { S: new Date(Date.now() - 1000).toISOString() } },
    }),
  );
  const after = await delivered();
  expect(String(after.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
  expect([verifies(after, newSecret), verifies(after, oldSecret)]).toStrictEqual([true, false]);
}, 120_000);

test('an endpoint created after a change does not receive it; it receives the next one', async () => {
  const latePet = '7532043913479288522';
  const added = await call('POST', '/pets', `{"id": ${latePet}, "name": "Before", "status": "available"}`);
  expect(added.status, added.text).toBe(201);
  // Committed (answered) before the endpoint exists.
  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}/late`, events: ['inventory.changed'] }),
  );
  expect(created.status, created.text).toBe(201);
  expect((await call('PATCH', `/inventory/${latePet}`, '{"quantity": 4}')).status).toBe(200);

  // Barrier: the later change arrives; the earlier one never did.
  const idsAtLate = () =>
    receiver.requests.filter((request) => request.path === '/late').map((r) => r.headers['webhook-id']);
  await expect.poll(idsAtLate, { timeout: 30_000 }).toContain(`inventory.${latePet}.2`);
  expect(idsAtLate()).not.toContain(`inventory.${latePet}.1`);
}, 120_000);

/** An endpoint of the receiver at `path` (its id), sent a test event. */
async function endpointSentTestEvent(path: string): Promise<string> {
  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}${path}`, events: ['order.changed'] }),
  );
  expect(created.status, created.text).toBe(201);
  const endpointId = JSON.parse(created.text).id as string;
  const sent = await call('POST', `/webhook-endpoints/${endpointId}/test`);
  expect(sent.status, sent.text).toBe(202);
  return endpointId;
}

/** The epoch ms at which the receiver got each request at `path`, in order. */
const arrivals = (path: string) =>
  receiver.requests.filter((request) => request.path === path).map((request) => request.receivedAt);

test("503 with Retry-After: 3: the next attempt comes no earlier than 3 s later (not the schedule's 1 s), and the attempt log shows that time", async () => {
  receiver.answer = { status: 503, headers: { 'retry-after': '3' } };
  const endpointId = await endpointSentTestEvent('/retry-after-seconds');

  await expect
    .poll(() => arrivals('/retry-after-seconds').length, { timeout: 60_000 })
    .toBeGreaterThanOrEqual(2);
  receiver.answer = { status: 204 };
  const [first, second] = arrivals('/retry-after-seconds') as [number, number];
  expect(second - first).toBeGreaterThanOrEqual(3_000);

  // The failed first attempt is listed with its next time at least 3 s after it; the retry came no earlier.
  await expect
    .poll(async () => (await attemptsOf(endpointId)).items.length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(2);
  const [firstAttempt, secondAttempt] = (await attemptsOf(endpointId)).items.slice(-2).reverse() as [
    Attempt,
    Attempt,
  ];
  expect(firstAttempt).toMatchObject({ attempt: 1, responseStatus: 503, outcome: 'failed' });
  const nextAttemptAt = Date.parse(firstAttempt.nextAttemptAt as string);
  expect(nextAttemptAt - Date.parse(firstAttempt.attemptedAt)).toBeGreaterThanOrEqual(3_000);
  expect(Date.parse(secondAttempt.attemptedAt)).toBeGreaterThanOrEqual(nextAttemptAt);
}, 120_000);

test('503 with Retry-After as an HTTP date: the next attempt comes no earlier than that date, and the attempt log shows it', async () => {
  const date = new Date(Date.now() + 6_000).toUTCString();
  receiver.answer = { status: 503, headers: { 'retry-after': date } };
  const endpointId = await endpointSentTestEvent('/retry-after-date');

  await expect
    .poll(() => arrivals('/retry-after-date').length, { timeout: 60_000 })
    .toBeGreaterThanOrEqual(2);
  receiver.answer = { status: 204 };
  const [first, second] = arrivals('/retry-after-date') as [number, number];
  expect(Date.parse(date) - first, 'the date lies well after the first attempt').toBeGreaterThan(2_000);
  expect(second).toBeGreaterThanOrEqual(Date.parse(date));

  // The failed first attempt's next time is the date, up to the second SQS counts in.
  const [firstAttempt] = (await attemptsOf(endpointId)).items.slice(-1) as [Attempt];
  expect(firstAttempt).toMatchObject({ attempt: 1, responseStatus: 503, outcome: 'failed' });
  const nextAttemptAt = Date.parse(firstAttempt.nextAttemptAt as string);
  expect(nextAttemptAt).toBeGreaterThanOrEqual(Date.parse(date));
  expect(nextAttemptAt).toBeLessThan(Date.parse(date) + 1_000);
}, 120_000);

test('redeliverWebhook: 202; the endpoint receives the event again, same webhook-id and body byte for byte, signed with its current secrets, listed in its attempts; 404 for another key, an event it never got, an unknown id, an event past 30 days; 400 for bad bodies; nothing changes on a refusal', async () => {
  receiver.answer = { status: 204 };
  // A change committed before the endpoint exists: in the events list, never sent to the endpoint.
  const earlierPetId = '7532043913479288512';
  const earlier = await call(
    'POST',
    '/pets',
    `{"id": ${earlierPetId}, "name": "Early", "status": "available"}`,
  );
  expect(earlier.status, earlier.text).toBe(201);
  const earlierEventId = `inventory.${earlierPetId}.1`;
  await expect
    .poll(
      async () =>
        (await call('GET', `/events?type=inventory.changed&limit=1000`)).text.includes(earlierEventId),
      { timeout: 30_000 },
    )
    .toBe(true);

  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}/redelivered`, events: ['inventory.changed'] }),
  );
  expect(created.status, created.text).toBe(201);
  const { id: endpointId, secret: oldSecret } = JSON.parse(created.text) as { id: string; secret: string };
  const redeliveredPetId = '7532043913479288513';
  const added = await call(
    'POST',
    '/pets',
    `{"id": ${redeliveredPetId}, "name": "Again", "status": "available"}`,
  );
  expect(added.status, added.text).toBe(201);
  const eventId = `inventory.${redeliveredPetId}.1`;
  const receivedOf = () =>
    receiver.requests.filter(
      (request) => request.path === '/redelivered' && request.headers['webhook-id'] === eventId,
    );
  await expect.poll(() => receivedOf().length, { timeout: 30_000 }).toBeGreaterThan(0);
  const [first] = receivedOf() as [ReceivedRequest];
  await expect
    .poll(async () => (await attemptsOf(endpointId)).items.map((attempt) => attempt.outcome), {
      timeout: 30_000,
    })
    .toStrictEqual(['delivered']);

  // Refused requests: exact Error bodies, and the tables unchanged.
  const path = `/webhook-endpoints/${endpointId}/redeliveries`;
  const tablesNow = async () =>
    Promise.all([api.tableItems('webhookAttempts'), api.tableItems('webhookEndpoints')]);
  const before = await tablesNow();
  const refusal = (status: number, code: string, message: string) => [status, { code, message, status }];
  const noEndpoint = refusal(404, 'not_found', `this API key holds no webhook endpoint ${endpointId}`);
  const neverSent = (id: string) =>
    refusal(404, 'not_found', `webhook endpoint ${endpointId} was sent no event ${id} in the last 30 days`);
  const badEventId = refusal(
    400,
    'invalid_request',
    'eventId must be the id of an event of the events list: inventory.<petId>.<sequence>, order.<orderId>.<status> or inventory_low_stock.<petId>.<sequence>.<reorderPoint> (a test event is not redelivered: send another)',
  );
  const rows: [string, string | undefined, string, unknown[]][] = [
    ["another key's endpoint", JSON.stringify({ eventId }), other, noEndpoint],
    [
      'an event the endpoint never got',
      JSON.stringify({ eventId: earlierEventId }),
      client,
      neverSent(earlierEventId),
    ],
    [
      'a well-formed unknown id',
      '{"eventId": "inventory.1.999999"}',
      client,
      neverSent('inventory.1.999999'),
    ],
    [
      'an unknown member',
      JSON.stringify({ eventId, endpointId }),
      client,
      refusal(400, 'invalid_request', 'a redelivery may only contain eventId; not allowed: "endpointId"'),
    ],
    ['no eventId', '{}', client, badEventId],
    ['an eventId that is not an event id', '{"eventId": "inventory.abc.1"}', client, badEventId],
    ['a number', `{"eventId": 1}`, client, badEventId],
    ['a test event id', '{"eventId": "test_3q2-7wAAAAAAAAAA"}', client, badEventId],
    [
      'not an object',
      `["${eventId}"]`,
      client,
      refusal(
        400,
        'invalid_request',
        'request body must be a JSON object such as {"eventId": "inventory.7532043913479288511.1"}',
      ),
    ],
    [
      'malformed JSON',
      '{"eventId": ',
      client,
      refusal(400, 'invalid_request', 'request body must be valid JSON'),
    ],
    [
      'no body',
      undefined,
      client,
      refusal(
        400,
        'invalid_request',
        'request body is required: a JSON object such as {"eventId": "inventory.7532043913479288511.1"}',
      ),
    ],
  ];
  for (const [name, body, authorization, expected] of rows) {
    const response = await call('POST', path, body, authorization);
    expect([response.status, JSON.parse(response.text)], name).toStrictEqual(expected);
    expect(response.headers.get('content-type'), name).toBe('application/json');
  }
  expect(await tablesNow()).toStrictEqual(before);

  // Signed with the endpoint's current secrets: after a rotation, the new and the old one (the overlap).
  const rotated = await call('POST', `/webhook-endpoints/${endpointId}/rotate-secret`);
  expect(rotated.status, rotated.text).toBe(200);
  const { secret: newSecret } = JSON.parse(rotated.text) as { secret: string };

  const redelivered = await call('POST', path, JSON.stringify({ eventId }));
  expect([redelivered.status, redelivered.text]).toStrictEqual([202, JSON.stringify({ eventId })]);
  expect(
    validateResponse({
      method: 'POST',
      path,
      status: redelivered.status,
      headers: redelivered.headers,
      body: redelivered.text,
    }),
  ).toStrictEqual([]);

  await expect.poll(() => receivedOf().length, { timeout: 30_000 }).toBeGreaterThan(1);
  const again = receivedOf()[1] as ReceivedRequest;
  expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
  expect(again.body).toBe(first.body);
  expect(validateWebhookBody('inventory.changed', again.body)).toStrictEqual([]);
  for (const secret of [oldSecret, newSecret]) {
    expect(new Webhook(secret).verify(again.body, again.headers as Record<string, string>)).toStrictEqual(
      JSON.parse(first.body),
    );
  }
  // The body is the events list's event without its id.
  const listed = await call('GET', `/events?type=inventory.changed&after=${earlierEventId}&limit=1000`);
  expect(listed.text).toContain(`{"id":"${eventId}",${first.body.slice(1)}`);

  // Listed in the attempts: the redelivery first, then the first delivery, and nothing else.
  await expect
    .poll(async () => (await attemptsOf(endpointId)).items, { timeout: 30_000 })
    .toStrictEqual([
      expect.objectContaining({ eventId, eventType: 'inventory.changed', attempt: 1, outcome: 'delivered' }),
      expect.objectContaining({ eventId, eventType: 'inventory.changed', attempt: 1, outcome: 'delivered' }),
    ]);

  // Past 30 days: the event moved to a position of 30 days and a second back (as if appended then), its id
  // marker with it.
  const eventsTable = localTableNames().events;
  const markerKey = { log: { S: `id#${eventId}` }, position: { N: '0' } };
  const marker = (await api.dynamoDb.send(new GetItemCommand({ TableName: eventsTable, Key: markerKey })))
    .Item;
  const place = { log: logKey(Number(marker?.eventLog?.N)), position: String(marker?.eventPosition?.N) };
  const stored = (
    await api.dynamoDb.send(
      new GetItemCommand({
        TableName: eventsTable,
        Key: { log: { S: place.log }, position: { N: place.position } },
      }),
    )
  ).Item;
  expect(stored?.id).toStrictEqual({ S: eventId });
  const oldPosition = String((Date.now() - 30 * 86_400_000 - 1000) * 1000);
  await api.dynamoDb.send(
    new PutItemCommand({ TableName: eventsTable, Item: { ...stored, position: { N: oldPosition } } }),
  );
  await api.dynamoDb.send(
    new UpdateItemCommand({
      TableName: eventsTable,
      Key: markerKey,
      UpdateExpression: 'SET eventPosition = :old',
      ExpressionAttributeValues: { ':old': { N: oldPosition } },
    }),
  );
  const expired = await call('POST', path, JSON.stringify({ eventId }));
  expect([expired.status, JSON.parse(expired.text)]).toStrictEqual(neverSent(eventId));
}, 120_000);
