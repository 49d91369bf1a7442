/**
 * Webhooks end to end on the local API serving the synthesized stack (docs/contract.md "History and events"):
 * endpoints made with the webhook tool; writes through the API; the stream, recordChanges, the bus and its
 * rule, the change-events queue, fanOutWebhooks, the delivery queue and deliverWebhooks deliver to three local
 * receivers: the README's receiver (verifies with `standardwebhooks`), one answering 500 twice per event then
 * 204, one failing until the test heals it. Both healthy ones receive every event, signatures verify, the
 * healthy one is not delayed by the failing one's retries; the receiver that keeps failing ends in `failures`
 * and `redrive` delivers its events again with the same `webhook-id`. Retry delays are shortened to 1 s
 * (WEBHOOK_RETRY_DELAYS, docs/local-api.md "Settings").
 */

import { readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { temporaryDir } from '@pet-store/local-aws/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventsEnv } from '#lib/events/changes.ts';
import { childEnv, projectRoot, runNode, scripts, spawnNode } from '#test/support/child-process.ts';
import { freePort } from '#test/support/free-port.ts';
import { validateWebhookBody } from '#test/support/openapi-validator.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

/** One request a receiver got: when, its headers and its exact body. */
interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A local receiver answering each request with `answer(request number of that webhook-id)`. */
async function startReceiver(answer: (attempt: number) => number) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const attempt = received.filter((r) => r.headers['webhook-id'] === id).length + 1;
      const status = answer(attempt);
      received.push({
        at: Date.now(),
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        status,
      });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise((r) => server.close(r)),
  };
}

let api: TestApi;
let retrying: Awaited<ReturnType<typeof startReceiver>>;
let healing: Awaited<ReturnType<typeof startReceiver>>;
let healed = false;
beforeAll(async () => {
  process.env[eventsEnv.retryDelays] = '1,1';
  api = await startTestApi({ onDisk: true, events: true });
  retrying = await startReceiver((attempt) => (attempt <= 2 ? 500 : 204));
  healing = await startReceiver(() => (healed ? 204 : 500));
});
cleanUpAfterAll(
  () => api?.close(),
  () => retrying?.close(),
  () => healing?.close(),
);
afterAll(() => {
  delete process.env[eventsEnv.retryDelays];
});

/** `npm run webhooks -- ...args` on the service's data folder. */
function webhooks(...args: string[]) {
  return runNode(scripts.webhooks, args, { env: childEnv({ DATA_DIR: api.dataDir }) });
}

/** Subscribes `url` with the tool: its id and signing secret. */
async function subscribe(url: string) {
  const added = await webhooks('add', url);
  expect(added.code, added.stderr).toBe(0);
  const id = /Added endpoint (\S+) /.exec(added.stderr)?.[1] as string;
  return { id, secret: added.stdout.trim() };
}

/**
 * Starts the README's receiver (its JavaScript block, run as written) as the README says: saved as `receiver.mjs` in a
 * folder of its own where `standardwebhooks` is installed (here linked to this project's copy), with `PORT` and
 * `WEBHOOK_SECRET`. Resolves with the line it printed for each event id, and when.
 */
async function startReadmeReceiver(port: number, secret: string) {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1] as string;
  expect(code).toContain("from 'standardwebhooks'");
  const dir = await temporaryDir('readme-receiver-');
  await mkdir(join(dir, 'node_modules'));
  await symlink(
    join(projectRoot, 'node_modules', 'standardwebhooks'),
    join(dir, 'node_modules', 'standardwebhooks'),
  );
  const file = join(dir, 'receiver.mjs');
  await writeFile(file, code);
  const env = childEnv({ PORT: String(port), WEBHOOK_SECRET: secret });
  const { child } = spawnNode(relative(projectRoot, file), [], env, dir);
  // Each `<webhook-id> <type> <data>` line, by webhook-id, and when it was printed.
  const printed = new Map<string, { at: number; line: string }>();
  child.stdout?.on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean))
      printed.set(line.split(' ')[0] as string, { at: Date.now(), line });
  });
  // Ready when it refuses an unsigned request.
  await eventually(
    () =>
      fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', body: '{}' }).then(
        (response) => response.status === 400,
        () => false,
      ),
    'the README receiver listening',
  );
  return printed;
}

/** Waits until `check()` holds; fails with `what` after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `method path` with the test key and a JSON body; status and body text. */
async function call(method: string, path: string, body: unknown) {
  return api.request(method, path, {
    headers: { Authorization: api.authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The receipts of each webhook-id of `received`, by id. */
function byId(received: Received[]): Map<string, Received[]> {
  const ids = new Map<string, Received[]>();
  for (const receipt of received) {
    const id = String(receipt.headers['webhook-id']);
    ids.set(id, [...(ids.get(id) ?? []), receipt]);
  }
  return ids;
}

// Every wait below is bounded (`eventually`); the whole outlasts the default timeout on a loaded machine.
test('two receivers get every event, signed; the failing one retried without delaying the other; a persistent failure is kept and redriven', async () => {
  const readmePort = await freePort();
  const readmeUrl = `http://127.0.0.1:${readmePort}/hooks`;
  const readmeEndpoint = await subscribe(readmeUrl);
  const readmePrinted = await startReadmeReceiver(readmePort, readmeEndpoint.secret);
  const retryingEndpoint = await subscribe(retrying.url);
  const healingEndpoint = await subscribe(healing.url);

  // addPet, a PATCH and an order: four events (three of the pet, one of the order). The petId is beyond 2^53,
  // where JSON.parse rounds (it would print 7532043913479289000).
  const petId = '7532043913479288466';
  const added = await api.request('POST', '/pets', {
    headers: { Authorization: api.authorization, 'Content-Type': 'application/json' },
    body: `{"id": ${petId}, "name": "Hooked", "status": "available"}`,
  });
  expect(added.status, added.text).toBe(201);
  expect((await call('PATCH', `/inventory/${petId}`, { quantity: 5, reason: 'arrival' })).status).toBe(200);
  const order = await api.request('POST', '/store/orders', {
    headers: { Authorization: api.authorization, 'Content-Type': 'application/json' },
    body: `{"petId": ${petId}, "quantity": 1}`,
  });
  expect(order.status, order.text).toBe(201);
  const orderId = /^\{"id":(\d+),/.exec(order.text)?.[1] as string;
  const expected = [
    `inventory.${petId}.1`,
    `inventory.${petId}.2`,
    `inventory.${petId}.3`,
    `order.${orderId}.placed`,
  ].sort();

  // The README receiver prints `<webhook-id> <type> <data>` for each delivery it verified.
  await eventually(
    () => expected.every((id) => readmePrinted.has(id)),
    'the README receiver got every event',
  );
  /** True once `receiver` has answered 204 to an attempt of every expected event. */
  const deliveredAll = (receiver: { received: Received[] }) => () =>
    expected.every((id) =>
      byId(receiver.received)
        .get(id)
        ?.some((r) => r.status === 204),
    );
  await eventually(deliveredAll(retrying), 'the retrying receiver got every event on its third attempt');

  // Every attempt to the retrying receiver is signed with its secret and verifies; the payload is exact.
  const verifier = new Webhook(retryingEndpoint.secret);
  for (const receipt of retrying.received) {
    const payload = verifier.verify(receipt.body, receipt.headers as Record<string, string>) as {
      type: string;
      data: unknown;
    };
    expect(['inventory.changed', 'order.changed']).toContain(payload.type);
    // The payload is what openapi.yaml's `webhooks` section declares for its type.
    expect(validateWebhookBody(payload.type, receipt.body)).toStrictEqual([]);
    expect(receipt.body).toMatch(new RegExp(`"petId":${petId}[,}]`));
  }
  const attempts = byId(retrying.received);
  expect([...attempts.keys()].sort()).toStrictEqual(expected);
  for (const id of expected) {
    const tries = attempts.get(id) as Received[];
    expect(tries.map((r) => r.status)).toStrictEqual([500, 500, 204]);
    // The retries waited their delays (1 s, then 1 s); the healthy receiver had the event a second before.
    expect((tries[2] as Received).at - (tries[0] as Received).at).toBeGreaterThanOrEqual(1500);
    expect(readmePrinted.get(id)?.at).toBeLessThan((tries[2] as Received).at - 1000);
    // The README receiver printed the delivery's type and data digit for digit.
    const delivered = /^\{"type":"([^"]+)",.*"data":(.*)\}$/.exec((tries[2] as Received).body);
    expect(readmePrinted.get(id)?.line).toBe(`${id} ${delivered?.[1]} ${delivered?.[2]}`);
  }
  expect([...readmePrinted.keys()].sort()).toStrictEqual(expected);

  // The receiver that keeps failing: three attempts each, then kept as failures.
  await eventually(async () => {
    const listed = await webhooks('failures', '--json');
    return (JSON.parse(listed.stdout || '[]') as unknown[]).length === expected.length;
  }, 'the persistent failures kept');
  const failures = JSON.parse((await webhooks('failures', '--json')).stdout) as {
    endpoint: string;
    eventId: string;
    attempts: number;
    lastStatus: number | null;
  }[];
  expect(failures.map((f) => [f.endpoint, f.eventId, f.attempts, f.lastStatus]).sort()).toStrictEqual(
    expected.map((id) => [healingEndpoint.id, id, 3, 500]).sort(),
  );
  expect(byId(healing.received).size).toBe(expected.length);

  healed = true;
  const redriven = await webhooks('redrive', healingEndpoint.id);
  expect(redriven.code, redriven.stderr).toBe(0);
  await eventually(deliveredAll(healing), 'the redriven events delivered');
  const healingVerifier = new Webhook(healingEndpoint.secret);
  for (const receipt of healing.received.filter((r) => r.status === 204)) {
    healingVerifier.verify(receipt.body, receipt.headers as Record<string, string>);
  }
  expect(JSON.parse((await webhooks('failures', '--json')).stdout)).toStrictEqual([]);
}, 120_000);
