/**
 * Retries honour the receiver, end to end on the local API serving the synthesized stack (docs/contract.md
 * "History and events": an answer 429 or 503 with `Retry-After`, seconds or an HTTP date, delays that endpoint's
 * next attempt to at least that time). Retries after 1 s otherwise (WEBHOOK_RETRY_DELAYS), so a next attempt
 * 3 s or more later is the receiver's doing; the attempt log's `nextAttemptAt` shows the time asked for.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventsEnv } from '#lib/events/changes.ts';
import { storeNewKey } from '#test/support/key-records.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi, unthrottled } from '#test/support/test-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

let api: TestApi;
let receiver: WebhookReceiver;
/** The client's key, as `Bearer <key>`. */
let client: string;
beforeAll(async () => {
  process.env[eventsEnv.retryDelays] = '1,1,1,1,1,1,1,1';
  api = await startTestApi({ events: true });
  receiver = await startWebhookReceiver();
  client = `Bearer ${await storeNewKey(api.keys, 'retry-after-owner', unthrottled)}`;
});
cleanUpAfterAll(
  () => api?.close(),
  () => receiver?.close(),
);
afterAll(() => {
  delete process.env[eventsEnv.retryDelays];
});

/** `method path` with the client's key and a JSON body. */
function call(method: string, path: string, body?: string) {
  return api.request(method, path, {
    headers: {
      Authorization: client,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
}

/** An attempt as listed (listWebhookAttempts). */
interface Attempt {
  eventId: string;
  attempt: number;
  attemptedAt: string;
  responseStatus: number | null;
  nextAttemptAt: string | null;
}

/** An endpoint of the receiver at `path` sent a test event: its id and the event's id. */
async function endpointSentTestEvent(path: string): Promise<{ endpointId: string; eventId: string }> {
  const created = await call(
    'POST',
    '/webhook-endpoints',
    JSON.stringify({ url: `${receiver.endpoint}${path}`, events: ['order.changed'] }),
  );
  expect(created.status, created.text).toBe(201);
  const endpointId = JSON.parse(created.text).id as string;
  const sent = await call('POST', `/webhook-endpoints/${endpointId}/test`);
  expect(sent.status, sent.text).toBe(202);
  return { endpointId, eventId: JSON.parse(sent.text).eventId as string };
}

/** The epoch ms at which the receiver got each request at `path`, in order. */
const arrivals = (path: string) =>
  receiver.requests.filter((request) => request.path === path).map((request) => request.receivedAt);

/** The attempts of `endpointId` listed, oldest first. */
async function attemptsOf(endpointId: string): Promise<Attempt[]> {
  const response = await call('GET', `/webhook-endpoints/${endpointId}/attempts`);
  expect(response.status, response.text).toBe(200);
  return (JSON.parse(response.text).items as Attempt[]).reverse();
}

test('503 with Retry-After: 3: the next attempt comes no earlier than 3 s later, and the attempt log shows that time', async () => {
  receiver.answer = { status: 503, headers: { 'retry-after': '3' } };
  const { endpointId, eventId } = await endpointSentTestEvent('/seconds');

  await expect.poll(() => arrivals('/seconds').length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  receiver.answer = { status: 204 };
  const [first, second] = arrivals('/seconds') as [number, number];
  expect(second - first).toBeGreaterThanOrEqual(3_000);

  // The failed first attempt is listed with its next time at least 3 s after it; the retry came no earlier.
  await expect
    .poll(async () => (await attemptsOf(endpointId)).length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(2);
  const [firstAttempt, secondAttempt] = (await attemptsOf(endpointId)) as [Attempt, Attempt];
  expect(firstAttempt).toMatchObject({ eventId, attempt: 1, responseStatus: 503 });
  const nextAttemptAt = Date.parse(firstAttempt.nextAttemptAt as string);
  expect(nextAttemptAt - Date.parse(firstAttempt.attemptedAt)).toBeGreaterThanOrEqual(3_000);
  expect(Date.parse(secondAttempt.attemptedAt)).toBeGreaterThanOrEqual(nextAttemptAt);
}, 120_000);

test('503 with Retry-After as an HTTP date: the next attempt comes no earlier than that date', async () => {
  const date = new Date(Date.now() + 6_000).toUTCString();
  receiver.answer = { status: 503, headers: { 'retry-after': date } };
  const { endpointId } = await endpointSentTestEvent('/date');

  await expect.poll(() => arrivals('/date').length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  receiver.answer = { status: 204 };
  const [first, second] = arrivals('/date') as [number, number];
  expect(Date.parse(date) - first, 'the date lies well after the first attempt').toBeGreaterThan(2_000);
  expect(second).toBeGreaterThanOrEqual(Date.parse(date));
  // The failed first attempt is listed with its next time: the date, up to the second SQS counts in.
  await expect
    .poll(async () => (await attemptsOf(endpointId)).length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(1);
  const [firstAttempt] = (await attemptsOf(endpointId)) as [Attempt];
  const nextAttemptAt = Date.parse(firstAttempt.nextAttemptAt as string);
  expect(nextAttemptAt).toBeGreaterThanOrEqual(Date.parse(date));
  expect(nextAttemptAt).toBeLessThan(Date.parse(date) + 1_000);
}, 120_000);
