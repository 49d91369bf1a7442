/**
 * `npm start` ready before its first answer and drained on its way out (docs/local-api.md "First start and
 * stopping"; docs/contract.md "Bounded cost, clean shutdown"): a first start answers its very first request
 * with the seeded list; SIGINT under PATCH load answers every request it took before closing the store, so
 * every stored quantity is one a client was told about; SIGTERM under keep-alive PATCH and order load ends
 * every connection after its answer, so the tables hold exactly the writes the clients were told about, within
 * 30 s; a request whose function could not end before the drain's cut (its body sent 24 s after the signal)
 * is answered 503 unrun, so its write cannot land unanswered; a data folder first used by
 * `npm run sam:dynamodb` still gets the demo data and a key, and the SAM events' published key is refused.
 */

import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { startTestStore, temporaryDir } from 'local-aws/testing';
import { describe, expect, test, vi } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { samApiKey } from '#local/sam-fixtures.ts';
import { childEnv, projectRoot, scripts, spawnNode } from '#test/support/child-process.ts';
import { startFaultProxy } from '#test/support/dynamodb-fault-proxy.ts';
import { freePort } from '#test/support/free-port.ts';
import { type RawResponse, rawClient, sendJson, sendJsonPatch } from '#test/support/raw-http.ts';
import { getInventory, serverArgs, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { serviceTables, storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';

cleanUpAfterAll();

/** The petId -> quantity map of a list body. */
function quantities(text: string): Map<string, number> {
  const entries = JSON.parse(text, (key, value, context?: { source?: string }) =>
    key === 'petId' ? context?.source : value,
  ) as { petId: string; quantity: number }[];
  return new Map(entries.map((entry) => [entry.petId, entry.quantity]));
}

describe('SIGINT under load', () => {
  test('answers every request it accepted, and stores only quantities a client was told', async () => {
    const dataDir = await temporaryDir('ready-drain-');
    const apiKey = generateApiKey();
    const server = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey, API_KEY_RATE: '1000' });
    const before = quantities((await getInventory(server.baseUrl, apiKey)).text);
    const petIds = [...before.keys()];
    const sent = petIds.map((petId, index) =>
      fetch(`${server.baseUrl}/inventory/${petId}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ quantity: 1000 + index }),
      }).then(
        async (response) => ({ status: response.status, text: await response.text() }),
        () => undefined,
      ),
    );
    // The signal comes as the first answer arrives (none at all fails the test): the server is then serving the
    // others, where a fixed pause could end before a loaded machine has accepted any of them.
    await Promise.any(sent.map(async (answer) => (await answer) ?? Promise.reject()));
    const stopped = await server.stop('SIGINT');
    const answers = await Promise.all(sent);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(/^Stopped\.$/m);

    const restarted = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey });
    const after = quantities((await getInventory(restarted.baseUrl, apiKey)).text);
    await restarted.stop('SIGTERM');
    petIds.forEach((petId, index) => {
      const answer = answers[index];
      if (answer === undefined) expect(after.get(petId), `pet ${petId}: no answer`).toBe(before.get(petId));
      else {
        expect(answer.status, answer.text).toBe(200);
        expect(after.get(petId), `pet ${petId}: answered`).toBe(1000 + index);
      }
    });
  }, 90_000);
});

/** Every order id of listOrders at `baseUrl`, following `Link` rel="next". */
async function orderIds(baseUrl: string, apiKey: string): Promise<string[]> {
  const ids: string[] = [];
  let url: string | undefined = `${baseUrl}/store/orders?limit=1000`;
  while (url) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` } });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    ids.push(...[...text.matchAll(/"id":(\d+)/g)].map(([, id]) => id as string));
    const next = /^<\/v1([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    url = next ? `${baseUrl}${next}` : undefined;
  }
  return ids;
}

/** An answer as {@link lateRequest} saw it: status line, header lines in sorted order, raw body. */
interface LateAnswer {
  status: string;
  headers: string[];
  body: string;
}

/**
 * A PATCH of pet 7 to 5 with `apiKey` on a new connection to `port`, sent but for its body's last bytes until
 * `finish`; `answer` is everything the server sent before closing the connection (the `Date` and request id
 * headers left out).
 */
function lateRequest(port: number, apiKey: string): { finish(): void; answer: Promise<LateAnswer> } {
  const body = '{"quantity": 5}';
  const head = [
    'PATCH /v1/inventory/7 HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${apiKey}`,
    'Content-Type: application/json',
    `Content-Length: ${body.length}`,
  ].join('\r\n');
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {});
  socket.write(`${head}\r\n\r\n${body.slice(0, 1)}`);
  const answer = new Promise<LateAnswer>((resolve) =>
    socket.once('close', () => {
      const end = received.indexOf('\r\n\r\n');
      const [status = '', ...headers] = received.slice(0, end).split('\r\n');
      const kept = headers.filter(
        (line) => !/^(date|x-amzn-requestid|x-amz-apigw-id|x-amzn-errortype):/i.test(line),
      );
      resolve({ status, headers: kept.sort(), body: received.slice(end + 4) });
    }),
  );
  return { finish: () => socket.write(body.slice(1)), answer };
}

/** An answer as {@link lateRequest} gets it (503 or 401, from `body`): its connection's last, the Error body chunked. */
function lateAnswer(body: string): LateAnswer {
  const status = JSON.parse(body).status as number;
  return {
    status: `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Service Unavailable'}`,
    headers: ['Connection: close', 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
    body: `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
  };
}

// The next three side by side: each has its own data folder and server, and the late request's test spends
// most of its time waiting for its body's 24 s.
describe.concurrent('SIGTERM and a request whose function could not end before the 29 s cut', () => {
  test('is answered 503 without running its integration (an unknown key 401 from its headers): no write lands unanswered', async () => {
    // The server's store behind a proxy that, after the signal, applies an UpdateItem and withholds its answer:
    // a PATCH run then would hang past the cut and its write land without an answer.
    const db = await startTestStore({ tables: serviceTables });
    const proxy = await startFaultProxy(db.endpoint);
    const apiKey = generateApiKey();
    const petId = { N: '7' };
    await db.client.send(
      new PutItemCommand({
        TableName: testTableNames.inventory,
        Item: { petId, quantity: { N: '3' }, status: { S: 'available' } },
      }),
    );
    const server = await startServerProcess({
      ...storeVariables({ endpoint: proxy.endpoint, credentials: db.credentials }),
      API_KEY: apiKey,
    });
    try {
      // The key's authorization cached, so that the PATCH below reaches its integration.
      expect((await getInventory(server.baseUrl, apiKey)).status).toBe(200);
      const port = Number(new URL(server.baseUrl).port);
      // Each request's head before the signal, its body 24 s after it: updateInventory's 10 s Timeout (or the
      // authorizer's) would end after the drain's 29 s, and the PATCH's DynamoDB client (3 attempts of 2 s)
      // would still wait at the cut.
      const cached = lateRequest(port, apiKey);
      const unknown = lateRequest(port, generateApiKey());
      await sleep(200);
      proxy.fault = (operation) => (operation === 'UpdateItem' ? 'unanswered' : 'pass');
      const stopped = server.stop('SIGTERM', 60_000);
      await sleep(24_000);
      cached.finish();
      unknown.finish();
      const { code, ms, stderr } = await stopped;

      // Nothing landed: the PATCH never ran.
      const { Item } = await db.client.send(
        new GetItemCommand({ TableName: testTableNames.inventory, Key: { petId }, ConsistentRead: true }),
      );
      expect(Item?.quantity).toEqual({ N: '3' });
      // The bodies are chunked: each is the Error body. The unknown key is refused from its headers, before
      // the signal and its body (the authorizer decides on the identity source alone: behaviour.md S1).
      expect(await cached.answer).toEqual(
        lateAnswer(
          '{"code":"service_unavailable","message":"the server is shutting down; retry","status":503}',
        ),
      );
      expect(await unknown.answer).toEqual(
        lateAnswer(
          '{"code":"unauthorized","message":"a valid API key is required: send Authorization: Bearer <API_KEY>","status":401}',
        ),
      );
      expect(code, stderr).toBe(0);
      expect(ms).toBeLessThan(30_000);
    } finally {
      await server.stop('SIGKILL');
      await proxy.close();
      await db.close();
    }
  }, 90_000);
});

describe.concurrent('a first start', () => {
  test('answers its very first request, sent as soon as the port accepts, with the seeded list', async () => {
    const port = await freePort();
    const apiKey = generateApiKey();
    const env = childEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: await temporaryDir('ready-drain-'),
      API_KEY: apiKey,
    });
    const { child, exited } = spawnNode(scripts.server, serverArgs(), env, projectRoot);
    const deadline = Date.now() + 60_000;
    let first: { status: number; text: string } | undefined;
    while (!first && Date.now() < deadline) {
      first = await getInventory(`http://127.0.0.1:${port}/v1`, apiKey).catch(() => undefined);
      if (!first) await sleep(5);
    }
    expect(first?.status, first?.text).toBe(200);
    expect(quantities(first?.text ?? '[]').size).toBe(24);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  }, 90_000);
});

describe.concurrent('a data folder first used by npm run sam:dynamodb', () => {
  test('npm start still seeds and prints a key, and refuses the SAM events key', async () => {
    const dataDir = await temporaryDir('ready-drain-');
    const sam = spawnNode(
      scripts.samDynamoDb,
      ['--port', '0', '--data-dir', dataDir],
      childEnv({}),
      projectRoot,
    );
    await vi.waitFor(() => expect(sam.output.stdout).toMatch(/SAM event fixtures seeded/), {
      timeout: 30_000,
      interval: 20,
    });
    sam.child.kill('SIGTERM');
    expect((await sam.exited).code, sam.output.stderr).toBe(0);

    const server = await startServerProcess({ DATA_DIR: dataDir });
    expect(server.stdout()).toMatch(/^First start: seeded 24 demo entries\.$/m);
    const key = /API key "local": (psk_\S+)$/m.exec(server.stdout())?.[1] as string;
    expect((await getInventory(server.baseUrl, key)).status).toBe(200);
    const refused = await getInventory(server.baseUrl, samApiKey);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toEqual({
      code: 'unauthorized',
      message: 'a valid API key is required: send Authorization: Bearer <API_KEY>',
      status: 401,
    });
    await server.stop('SIGTERM');
  }, 90_000);
});

describe('SIGTERM under keep-alive write load', () => {
  test('every write that landed was answered, every answered write landed; exit within 30 s', async () => {
    const dataDir = await temporaryDir('ready-drain-');
    const apiKey = generateApiKey();
    const authorization = `Bearer ${apiKey}`;
    const server = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey, API_KEY_RATE: '100000' });
    const before = quantities((await getInventory(server.baseUrl, apiKey)).text);
    const petIds = [...before.keys()];
    const patched = petIds.slice(0, 16);
    const ordered = petIds.slice(16, 24);
    const stock = 1_000_000;
    const setup = rawClient(server.baseUrl);
    for (const petId of ordered) {
      const answer = await sendJsonPatch(
        setup,
        authorization,
        `/inventory/${petId}`,
        `{"quantity": ${stock}, "status": "available"}`,
      );
      expect(answer.status, answer.text).toBe(200);
    }
    setup.close();

    /** One write as a client sent it, and its answer when one came. */
    interface Write {
      petId: string;
      /** A PATCH's quantity, unique across the run; undefined for an order. */
      quantity?: number;
      answer?: RawResponse;
    }
    const writes: Write[] = [];
    let nextQuantity = 1;
    let signalled = false;
    const failedBeforeSignal: unknown[] = [];

    /** Writes to `pets` in turn over one keep-alive connection until the server stops answering. */
    async function writer(kind: 'patch' | 'order', pets: readonly string[], index: number): Promise<void> {
      const client = rawClient(server.baseUrl, { maxSockets: 1 });
      for (let n = 0; ; n++) {
        const petId = pets[n % pets.length] as string;
        const write: Write = kind === 'patch' ? { petId, quantity: nextQuantity++ } : { petId };
        writes.push(write);
        try {
          write.answer =
            kind === 'patch'
              ? await sendJsonPatch(
                  client,
                  authorization,
                  `/inventory/${petId}`,
                  `{"quantity": ${write.quantity}}`,
                )
              : await sendJson(
                  client,
                  authorization,
                  'POST',
                  '/store/orders',
                  `{"petId": ${petId}, "quantity": 1}`,
                  [['Idempotency-Key', `drain-${index}-${n}`]],
                );
        } catch (error) {
          // The connection refused or reset: this client is done.
          if (!signalled) failedBeforeSignal.push(error);
          client.close();
          return;
        }
      }
    }
    // One client per pet, 16 PATCHing and 8 placing orders: enough that some request is always in flight.
    const writers = [
      ...patched.map((petId, i) => writer('patch', [petId], i)),
      ...ordered.map((petId, i) => writer('order', [petId], i)),
    ];
    // The signal once every function is warm and the writes come fast.
    while (writes.filter((write) => write.answer).length < 200) await sleep(20);
    signalled = true;
    const stopped = await server.stop('SIGTERM', 60_000);
    await Promise.all(writers);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.ms).toBeLessThan(30_000);
    expect(failedBeforeSignal).toEqual([]);
    const answered = writes.filter((write) => write.answer !== undefined);
    expect(answered.length).toBeGreaterThan(0);
    for (const { answer, quantity } of answered) {
      expect(answer?.status, answer?.text).toBe(quantity === undefined ? 201 : 200);
    }

    const restarted = await startServerProcess({ DATA_DIR: dataDir, API_KEY: apiKey });
    const after = quantities((await getInventory(restarted.baseUrl, apiKey)).text);
    const listed = await orderIds(restarted.baseUrl, apiKey);
    await restarted.stop('SIGTERM');
    for (const petId of patched) {
      const told = answered.filter((write) => write.petId === petId).at(-1)?.quantity ?? before.get(petId);
      expect(after.get(petId), `pet ${petId}: the last quantity answered`).toBe(told);
    }
    const placed = answered.filter((write) => write.quantity === undefined);
    const placedIds = placed.map(({ answer }) => /"id":(\d+)/.exec(answer?.text ?? '')?.[1]);
    expect(listed.sort()).toEqual(placedIds.sort());
    for (const petId of ordered) {
      const orders = placed.filter((write) => write.petId === petId).length;
      expect(after.get(petId), `pet ${petId}: stock less the orders answered`).toBe(stock - orders);
    }
    // The answers after the signal told their clients that the connection closes.
    expect(answered.some(({ answer }) => answer?.headers.connection === 'close')).toBe(true);
  }, 150_000);
});
