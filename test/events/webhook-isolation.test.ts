/**
 * A hanging subscriber delays no one (docs/contract.md "History and events": while one subscriber's endpoint
 * hangs, a healthy subscriber's deliveries arrive within 5 s of the change at 10 changes per second), end to end
 * on the local API serving the synthesized stack: the stream, recordChanges, the bus, fanOutWebhooks, both
 * delivery lanes and their mappings as the stack defines them (docs/architecture.md "Events and webhooks").
 * Two subscriptions made with the webhook tool: one endpoint that never answers, one that answers 204 at once.
 * Ten PATCHes a second for 10 s, each on its own pet and quantity, so that each delivery names its change:
 * first with the healthy subscriber alone (the control), then beside the hanging one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from 'vitest';
import { childEnv, runNode, scripts } from '#test/support/child-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

/** Changes per second, and for how long. */
const changesPerSecond = 10;
const seconds = 10;
/** The contract's bound from a write's answer to the healthy subscriber's delivery. */
const boundMs = 5_000;
/** What a loaded machine's bound adds to the slowest delivery without a hanging endpoint (ms). */
const marginMs = 2_000;

/** A local endpoint: `answer` false never answers (the request hangs until the server closes). */
async function startEndpoint(answer: boolean) {
  /** Each request's body and when it arrived. */
  const received: { at: number; body: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ at: Date.now(), body: Buffer.concat(chunks).toString() });
      if (answer) response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

let api: TestApi | undefined;
let healthy: Awaited<ReturnType<typeof startEndpoint>> | undefined;
let hanging: Awaited<ReturnType<typeof startEndpoint>> | undefined;
cleanUpAfterAll(
  () => hanging?.close(),
  () => healthy?.close(),
  () => api?.close(),
);

/**
 * `PATCH` with the test key, retried as a client would on a connection error or a 503 (the embedded store busy
 * on a loaded machine): the last answer's status and when it came.
 */
async function patch(service: TestApi, petId: number, quantity: number) {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await service.patch(String(petId), JSON.stringify({ quantity }));
      if (response.status !== 503 || attempt >= 5) return { status: response.status, answeredAt: Date.now() };
    } catch (error) {
      if (attempt >= 5) throw error;
    }
    await sleep(100 * attempt);
  }
}

/**
 * Sends changes `first` to `last` at {@link changesPerSecond} (change k sets pet k mod 10 to quantity k) and
 * waits for the healthy endpoint to get each: the delay of each from its write's answer (Infinity if never).
 */
async function changesAndDelays(service: TestApi, pets: readonly number[], first: number, last: number) {
  const started = Date.now();
  const answers = new Map<number, Promise<{ status: number; answeredAt: number }>>();
  for (let k = first; k <= last; k++) {
    await sleep(started + ((k - first) * 1000) / changesPerSecond - Date.now());
    answers.set(k, patch(service, pets[k % pets.length] as number, k));
  }
  const answered = new Map<number, { status: number; answeredAt: number }>();
  for (const [k, answer] of answers) answered.set(k, await answer);
  expect([...answered.values()].filter((a) => a.status !== 200)).toStrictEqual([]);

  /** When the healthy endpoint first got change k, by k. */
  const deliveredAt = () => {
    const at = new Map<number, number>();
    for (const { at: time, body } of healthy?.received ?? []) {
      const quantity = /"quantity":\{"from":\d+,"to":(\d+)\}/.exec(body)?.[1];
      const k = Number(quantity);
      if (quantity !== undefined && answered.has(k) && !at.has(k)) at.set(k, time);
    }
    return at;
  };
  const deadline = Date.now() + 30_000;
  while (deliveredAt().size < answered.size && Date.now() < deadline) await sleep(200);
  const delivered = deliveredAt();
  return [...answered].map(([k, { answeredAt }]) => ({
    k,
    delayMs: (delivered.get(k) ?? Number.POSITIVE_INFINITY) - answeredAt,
  }));
}

test(`a hanging endpoint delays no one: at ${changesPerSecond} changes/s for ${seconds} s, the healthy subscriber gets every change within 5 s of its answer`, {
  timeout: 240_000,
}, async () => {
  const pets = Array.from({ length: changesPerSecond }, (_, index) => 7001 + index);
  api = await startTestApi({
    events: true,
    onDisk: true,
    inventory: pets.map((petId) => ({ petId: String(petId), quantity: 0, status: 'available' })),
  });
  const service = api;
  healthy = await startEndpoint(true);
  hanging = await startEndpoint(false);
  const subscribe = async (url: string) => {
    const added = await runNode(scripts.webhooks, ['add', url], {
      env: childEnv({ DATA_DIR: service.dataDir }),
    });
    expect(added.code, added.stderr).toBe(0);
  };
  const changes = changesPerSecond * seconds;

  // The control: the same changes with the healthy subscriber alone. On a machine loaded enough that its
  // deliveries already take longer than the contract's 5 s, the bound is its own slowest delivery plus a
  // margin, so that what is measured is what the hanging endpoint adds.
  await subscribe(healthy.url);
  const alone = await changesAndDelays(service, pets, 1, changes);
  expect(alone.filter(({ delayMs }) => delayMs === Number.POSITIVE_INFINITY)).toStrictEqual([]);
  const bound = Math.max(boundMs, Math.max(...alone.map(({ delayMs }) => delayMs)) + marginMs);

  await subscribe(hanging.url);
  const beside = await changesAndDelays(service, pets, changes + 1, 2 * changes);
  // Every change reached the healthy subscriber, each within the bound of its write's answer.
  expect(beside.filter(({ delayMs }) => delayMs > bound)).toStrictEqual([]);
  // The hanging endpoint was attempted all along (its deliveries are retried in the slow lane).
  expect(hanging.received.length).toBeGreaterThan(0);
});
