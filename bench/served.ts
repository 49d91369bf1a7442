/**
 * Through `npm start --stack staging`: webhook deliveries (alone, beside a hanging endpoint, and the fairness
 * table), the list over HTTP, the import with the event path.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { connectLocalDynamoDb, type Template } from 'local-aws';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { type InventoryItem, inventoryJson, petStatuses } from '#lib/inventory/inventory-item.ts';
import { indexLowStock } from '#lib/inventory/low-stock.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { childEnv, runNode } from '#test/support/child-process.ts';
import { patchedAssembly } from '#test/support/patched-assembly.ts';
import { callApi, startServerProcess } from '#test/support/server-process.ts';
import { serviceTables, testTableNames } from '#test/support/test-dynamodb.ts';
import { dynamoDbClient, startTestStore, temporaryDir } from '#test/support/testing-kit.ts';
import {
  type ReceiverAnswer,
  startWebhookReceiver,
  type WebhookReceiver,
} from '#test/support/webhook-receiver.ts';
import { attachMeter, indented, median, medians, quantile } from './processes.ts';

/** `npm start` on `assembly` and the data folder `DATA_DIR`, key `API_KEY` at 10,000 requests/s, ERROR logs. */
async function startServer(assembly: string, env: { DATA_DIR: string; API_KEY: string }) {
  const variables = { API_KEY_RATE: '10000', POWERTOOLS_LOG_LEVEL: 'ERROR', ...env };
  const server = await startServerProcess(variables, { assembly, timeoutMs: 300_000 });
  const { endpoint, credentials } = await connectLocalDynamoDb(env.DATA_DIR);
  const client = toDocumentClient(dynamoDbClient(endpoint, credentials));
  /** A list of `/inventory<query>`: ms to its first byte and end, with `keep` its body. @throws unless a 200 array */
  const list = async (query = '', keep = false) => {
    const start = performance.now();
    const headers = { Authorization: `Bearer ${env.API_KEY}` };
    const response = await fetch(`${server.baseUrl}/inventory${query}`, { headers });
    const [kept, at] = [[] as Uint8Array[], { firstByteMs: 0, last: 0 }];
    for await (const chunk of response.body ?? []) {
      at.firstByteMs ||= performance.now() - start;
      at.last = chunk.at(-1) ?? 0;
      if (keep) kept.push(chunk);
    }
    if (response.status !== 200 || at.last !== 0x5d) throw new Error(`incomplete list (${response.status})`);
    const totalMs = performance.now() - start;
    return { firstByteMs: at.firstByteMs, totalMs, body: Buffer.concat(kept).toString() };
  };
  /** A one-entry page first starts the list function's environment, so the peak is the list's own. */
  const listPeak = async (keep = false) => {
    await list('?limit=1');
    return peakGrowth(server.pid, () => list('', keep));
  };
  const close = () => server.stop().finally(() => client.destroy());
  return { ...server, endpoint, credentials, client, list, listPeak, close };
}

/** Runs the operator tool `script` (ops/…) on the data folder `DATA_DIR`: its output. @throws with it on failure */
async function runTool(script: string, args: string[], DATA_DIR: string): Promise<string> {
  const result = await runNode(script, args, { env: childEnv({ DATA_DIR }), timeoutMs: 3_600_000 });
  if (result.code !== 0) throw new Error(`${script} ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** Resident memory of process `pid` in MB (Linux `/proc/<pid>/status`): VmRSS, VmHWM, RssAnon. */
async function memoryMb(pid: number) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM'), anon: field('RssAnon') };
}

/** Process `pid`'s peak growth in MB over `work`: VmHWM less VmRSS before, RssAnon (sampled) less before. */
async function peakGrowth<T>(pid: number, work: () => Promise<T>) {
  await writeFile(`/proc/${pid}/clear_refs`, '5');
  const before = await memoryMb(pid);
  let anon = before.anon;
  const sampler = setInterval(async () => {
    anon = Math.max(anon, (await memoryMb(pid).catch(() => before)).anon);
  }, 10);
  const result = await work().finally(() => clearInterval(sampler));
  const after = await memoryMb(pid);
  return { result, peakRssMb: after.peak - before.rss, peakAnonMb: Math.max(anon, after.anon) - before.anon };
}

/** Entries `from` to `to` (exclusive) of a deterministic sequence: distinct int64 petIds, all quantities, statuses. */
function generate(from: number, to: number): InventoryItem[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const magnitude = (BigInt(i + 1) * 6364136223846793005n) % 2n ** 63n;
    const status = petStatuses[i % petStatuses.length] as InventoryItem['status'];
    return { petId: (i % 2 === 0 ? magnitude : -magnitude).toString(), quantity: i % 1000, status };
  });
}

/** Writes entries `from` to `to` of {@link generate} into the store of `dataDir` (its tables created first). */
async function load(dataDir: string, from: number, to: number) {
  const start = performance.now();
  const db = await startTestStore({ dataDir, tables: serviceTables });
  const store = inventoryStore(toDocumentClient(db.client), testTableNames.inventory);
  for (let next = from; next < to; next += 8000) {
    const chunk = generate(next, Math.min(next + 8000, to));
    const putPart = (i: number) => store.putMany(chunk.slice(i * 1000, i * 1000 + 1000));
    await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(putPart));
  }
  await db.close();
  indented(`${to} entries loaded (${((to - from) / ((performance.now() - start) / 1000)).toFixed(0)} per s)`);
}

/** The assembly without the staging stack's stream mappings: a server then ignores the loading's change records. */
function withoutEventPath(assemblyDir: string): Promise<string> {
  const streamMapping = ({ Type, Properties }: Template['Resources'][string]) =>
    Type === 'AWS::Lambda::EventSourceMapping' &&
    JSON.stringify(Properties?.EventSourceArn).includes('StreamArn');
  const keep = (resources: Template['Resources']) =>
    Object.fromEntries(Object.entries(resources).filter(([, resource]) => !streamMapping(resource)));
  return patchedAssembly((template) => ({ ...template, Resources: keep(template.Resources) }), assemblyDir);
}

/** Grows the table through `sizes`, a fresh server on it at each size to list; a failed size ends the run. */
export async function measureListOverHttp(assemblyDir: string, sizes: readonly number[], runs: number) {
  const [dataDir, API_KEY] = [await temporaryDir('pet-store-bench-data-'), generateApiKey()];
  const assembly = await withoutEventPath(assemblyDir);
  const results = [];
  let loaded = 0;
  for (const entries of [...sizes].sort((a, b) => a - b)) {
    await load(dataDir, loaded, entries);
    loaded = entries;
    const server = await startServer(assembly, { DATA_DIR: dataDir, API_KEY });
    const metered = toDocumentClient(dynamoDbClient(server.endpoint, server.credentials));
    const meter = attachMeter(metered);
    const store = inventoryStore(server.client, testTableNames.inventory);
    const meteredStore = inventoryStore(metered, testTableNames.inventory);
    try {
      const { result, peakRssMb, peakAnonMb } = await server.listPeak(true);
      const sorted = generate(0, entries).sort((a, b) => comparePetIds(a.petId, b.petId));
      if (result.body !== inventoryJson(sorted))
        throw new Error('not every entry in petId order, digit for digit');
      indented(`${entries}: the list is the whole table, sorted and digit-exact`);
      const readUnits = (await meter(() => Array.fromAsync(meteredStore.listSorted()))).capacityUnits;
      // The server is fresh: lists of about 20,000 entries in all first, so small sizes are timed warm too.
      for (let i = 0; i < Math.ceil(20_000 / entries); i++) await server.list();
      const samples: number[][] = [];
      for (let run = 0; run < runs; run++) {
        const { firstByteMs, totalMs } = await server.list();
        const start = performance.now();
        await Array.fromAsync(store.listSorted()); // The raw sorted read: no Lambda, HTTP or JSON.
        samples.push([totalMs, firstByteMs, performance.now() - start]);
      }
      const [totalMs, firstByteMs, rawMs] = medians(samples) as [number, number, number];
      results.push({ entries, totalMs, firstByteMs, rawMs, peakRssMb, peakAnonMb, readUnits });
      indented(
        `${entries}: list ${totalMs.toFixed(0)} ms (first byte ${firstByteMs.toFixed(1)} ms), raw ${rawMs.toFixed(0)} ms,` +
          ` server peak RSS +${peakRssMb.toFixed(1)} MB (anonymous +${peakAnonMb.toFixed(1)} MB), ${readUnits} RRU per list`,
      );
    } catch (error) {
      indented(`${entries}: the list failed (${(error as Error).message}); larger sizes skipped`);
      break;
    } finally {
      await server.close();
      metered.destroy();
    }
  }
  return results;
}

type Server = Awaited<ReturnType<typeof startServer>>;

/**
 * `seconds` of changes at 10/s through `server` (PATCHes of the demo pets 1-10, each its own quantity), then
 * up to `waitMs` for `healthy` to get each: the changes answered and ms from each answer to its first receipt.
 */
async function healthyDelays(
  server: Server,
  apiKey: string,
  healthy: WebhookReceiver,
  seconds: number,
  waitMs: number,
) {
  const [answeredAt, writes, started] = [new Map<number, number>(), [] as Promise<void>[], Date.now()];
  for (let k = 1; k <= 10 * seconds; k++) {
    await sleep(Math.max(0, started + (k - 1) * 100 - Date.now()));
    const [path, body] = [`/inventory/${(k % 10) + 1}`, `{"quantity":${1000 + k}}`];
    const write = callApi(server, apiKey, 'PATCH', path, body);
    writes.push(write.then(({ status }) => void (status === 200 && answeredAt.set(k, Date.now()))));
  }
  await Promise.all(writes);
  const delays = () => {
    const first = new Map<number, number>();
    for (const { receivedAt, body } of healthy.requests) {
      const k = Number(/"quantity":\{"from":\d+,"to":(\d+)\}/.exec(body)?.[1]) - 1000;
      if (answeredAt.has(k) && !first.has(k)) first.set(k, receivedAt - (answeredAt.get(k) as number));
    }
    return [...first.values()];
  };
  const deadline = Date.now() + waitMs;
  while (delays().length < answeredAt.size && Date.now() < deadline) await sleep(200);
  return { changes: answeredAt.size, delays: delays() };
}

/** Ms from each write's answer to a healthy subscriber's first receipt (`hanging`: beside one that never answers). */
export async function measureWebhookDelays(assembly: string, hanging: boolean, seconds: number) {
  const [DATA_DIR, API_KEY] = [await temporaryDir('bench-webhooks-'), generateApiKey()];
  const server = await startServer(assembly, { DATA_DIR, API_KEY });
  const healthy = await startWebhookReceiver();
  const receivers = [healthy, ...(hanging ? [await startWebhookReceiver()] : [])];
  try {
    for (const other of receivers.slice(1)) other.answer = { stallMs: 3_600_000 };
    for (const { endpoint } of receivers) await runTool('ops/webhooks.ts', ['add', endpoint], DATA_DIR);
    const { changes, delays: measured } = await healthyDelays(server, API_KEY, healthy, seconds, 60_000);
    const [p50Ms, p99Ms, maxMs] = [median(measured), quantile(measured, 0.99), Math.max(...measured)];
    const delivered = measured.length;
    const which = (hanging ? 'beside a hanging endpoint' : 'alone').padEnd(25);
    indented(`${which}  ${delivered} of ${changes} delivered, p50 ${p50Ms}, p99 ${p99Ms}, max ${maxMs}`);
    return { hanging, changes, delivered, p50Ms, p99Ms, maxMs };
  } finally {
    await server.close();
    await Promise.all(receivers.map(({ close }) => close()));
  }
}

/** How the noisy endpoints of the fairness table answer: never (within the 10 s of an attempt), 500, after 1.9 s. */
export const noisyAnswers = {
  hang: { stallMs: 3_600_000 },
  fail: { status: 500 },
  'answer in 1.9 s': { stallMs: 1_900 },
} satisfies Record<string, ReceiverAnswer>;

/**
 * A healthy endpoint's delays at 10 changes/s for `seconds`, beside `noisy` endpoints of another key that
 * answer as `behaviour` says (docs/contract.md "History and events": capacity shared fairly by endpoint): a
 * fresh `npm start`, the endpoints made through the API.
 */
export async function measureFairness(
  assembly: string,
  behaviour: keyof typeof noisyAnswers,
  noisy: number,
  seconds: number,
) {
  const [DATA_DIR, API_KEY] = [await temporaryDir('bench-fairness-'), generateApiKey()];
  const server = await startServer(assembly, { DATA_DIR, API_KEY });
  const [healthy, noisyReceiver] = [await startWebhookReceiver(), await startWebhookReceiver()];
  noisyReceiver.answer = noisyAnswers[behaviour];
  try {
    const create = async (key: string, url: string) => {
      const { status, text } = await callApi(
        server,
        key,
        'POST',
        '/webhook-endpoints',
        JSON.stringify({ url }),
      );
      if (status !== 201) throw new Error(`createWebhookEndpoint: ${status} ${text}`);
    };
    await create(API_KEY, `${healthy.endpoint}/hooks`);
    if (noisy > 0) {
      const created = await runTool('ops/api-keys.ts', ['create', 'noisy', '--rate', '10000'], DATA_DIR);
      const noisyKey = created.trim().split(/\s+/).at(-1) as string;
      for (let n = 0; n < noisy; n++) await create(noisyKey, `${noisyReceiver.endpoint}/hooks/${n}`);
    }
    const { changes, delays } = await healthyDelays(server, API_KEY, healthy, seconds, 30_000);
    const [p50Ms, maxMs] = [median(delays), Math.max(...delays)];
    const delivered = delays.length;
    const which = noisy === 0 ? 'alone' : `${noisy} that ${behaviour}`;
    indented(`${which.padEnd(24)} ${delivered} of ${changes} delivered, p50 ${p50Ms} ms, max ${maxMs} ms`);
    return { behaviour, noisy, changes, delivered, p50Ms, maxMs };
  } finally {
    await server.close();
    await Promise.all([healthy.close(), noisyReceiver.close()]);
  }
}

/**
 * `npm run import` of `entries` rows, stream mappings off and on: rows/s each way and the seconds with them (the
 * tool's wall clock), rows/s in the history 2 s after (information, no budget), the list's peak beside the backlog.
 */
export async function measureEventPath(assemblyDir: string, entries: number) {
  const scratch = await temporaryDir('pet-store-bench-import-');
  const [file, items, API_KEY] = [join(scratch, 'inventory.csv'), generate(0, entries), generateApiKey()];
  const rows = items.map(({ petId, quantity, status }) => `${petId},${quantity},${status}\n`);
  await writeFile(file, ['petId,quantity,status\n', ...rows]);
  const figures = {
    entries,
    importOff: 0,
    importOn: 0,
    secondsOn: 0,
    drained: 0,
    peakAnonMb: 0,
    peakRssMb: 0,
  };
  for (const [on, assembly] of [await withoutEventPath(assemblyDir), assemblyDir].entries()) {
    const DATA_DIR = await mkdtemp(join(scratch, 'data-'));
    const server = await startServer(assembly, { DATA_DIR, API_KEY });
    try {
      const start = performance.now();
      await runTool('ops/import-inventory.ts', [file], DATA_DIR);
      const seconds = (performance.now() - start) / 1000;
      figures[on ? 'importOn' : 'importOff'] = entries / seconds;
      indented(`event path ${on ? 'on' : 'off'}: ${entries} rows imported in ${seconds.toFixed(1)} s`);
      if (!on) continue;
      figures.secondsOn = seconds;
      await sleep(2000);
      const inHistory = async (index: number) => {
        const query = { TableName: testTableNames.inventoryHistory, KeyConditionExpression: 'petId = :id' };
        const values = { ExpressionAttributeValues: { ':id': BigInt(items[index]?.petId ?? 0) }, Limit: 1 };
        return ((await server.client.send(new QueryCommand({ ...query, ...values }))).Count ?? 0) > 0;
      };
      // The consumer takes the rows in file order: those in the history are a prefix, found by halving.
      let [drained, high] = [0, entries];
      while (drained < high) {
        const middle = (drained + high) >> 1;
        [drained, high] = (await inHistory(middle)) ? [middle + 1, high] : [drained, middle];
      }
      figures.drained = drained / seconds;
      const list = await server.listPeak();
      Object.assign(figures, { peakAnonMb: list.peakAnonMb, peakRssMb: list.peakRssMb });
      const took = list.result.totalMs.toFixed(0);
      const rates = `${figures.drained.toFixed(0)} rows/s of the ${figures.importOn.toFixed(0)} written`;
      indented(
        `${drained} rows in the history 2 s after (${rates}); the list beside the backlog took ${took} ms`,
      );
      const ratio = (figures.importOn / figures.importOff).toFixed(2);
      indented(`rows/s with the event path / without: ${ratio} (information, no budget)`);
    } finally {
      await server.close();
    }
  }
  return figures;
}

/**
 * `lowStock=true` on a table of `entries` with `low` of them low (each `entries / low`-th, its reorder point its
 * quantity, indexed as the change records' consumer would: lib/inventory/low-stock.ts), served without the event
 * path: ms per list (median of `runs`) and the read units of the sorted low read.
 */
export async function measureLowStock(assemblyDir: string, entries: number, low: number, runs: number) {
  const [dataDir, API_KEY] = [await temporaryDir('pet-store-bench-low-'), generateApiKey()];
  const every = Math.floor(entries / low);
  const isLowAt = (i: number) => i % every === 0 && i / every < low;
  const db = await startTestStore({ tables: serviceTables, dataDir });
  const documents = toDocumentClient(db.client);
  const store = inventoryStore(documents, testTableNames.inventory);
  for (let next = 0; next < entries; next += 8000) {
    const chunk = generate(next, Math.min(next + 8000, entries)).map((item, k) =>
      isLowAt(next + k) ? { ...item, reorderPoint: item.quantity } : item,
    );
    await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => store.putMany(chunk.slice(i * 1000, i * 1000 + 1000))),
    );
    const states = chunk
      .filter((item) => item.reorderPoint !== undefined)
      .map(({ petId }) => ({ petId, low: true, indexed: false }));
    await indexLowStock(documents, testTableNames.inventory, states);
  }
  await db.close();
  indented(`${entries} entries loaded, ${low} of them low`);
  const server = await startServer(await withoutEventPath(assemblyDir), { DATA_DIR: dataDir, API_KEY });
  const metered = toDocumentClient(dynamoDbClient(server.endpoint, server.credentials));
  const meter = attachMeter(metered);
  try {
    const listed = JSON.parse((await server.list('?lowStock=true', true)).body) as unknown[];
    if (listed.length !== low) throw new Error(`${listed.length} low entries listed, not ${low}`);
    const meteredStore = inventoryStore(metered, testTableNames.inventory);
    const readUnits = (await meter(() => Array.fromAsync(meteredStore.listSorted({ lowStock: true }))))
      .capacityUnits;
    const samples: number[] = [];
    for (let run = 0; run < runs; run++) samples.push((await server.list('?lowStock=true')).totalMs);
    const totalMs = median(samples);
    indented(
      `lowStock=true on ${entries} entries (${low} low): ${totalMs.toFixed(0)} ms, ${readUnits} RRU per list`,
    );
    return { entries, low, totalMs, readUnits };
  } finally {
    await server.close();
    metered.destroy();
  }
}

/**
 * The rush: `tills` tills each selling one unit of one pet at once, `rounds` times on a stock of `tills`, through
 * `npm start --stack staging` without the stream mappings: as one `{"adjustBy": -1}` PATCH each
 * (docs/contract.md "Inventory semantics": adjustments), and as a GET then a PATCH of `quantity` with `If-Match`,
 * again from the GET on each 412. Sales per second (sales over the round's wall time) and the p99 of a sale's
 * time from its first request to its 200, over every round; the read-then-write way also its requests per sale.
 * @throws when a round does not sell exactly the stock
 */
export async function measureRush(assemblyDir: string, tills: number, rounds: number) {
  const [dataDir, API_KEY] = [await temporaryDir('pet-store-bench-rush-'), generateApiKey()];
  const server = await startServer(await withoutEventPath(assemblyDir), { DATA_DIR: dataDir, API_KEY });
  const store = inventoryStore(server.client, testTableNames.inventory);
  const headers = { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' };
  const url = `${server.baseUrl}/inventory/1`;
  const send = (method: string, body?: string, extra: Record<string, string> = {}) =>
    fetch(url, { method, headers: { ...headers, ...extra }, ...(body === undefined ? {} : { body }) });
  /** One sale by delta: its requests (1) when it answered 200. */
  const byDelta = async () =>
    (await send('PATCH', '{"adjustBy": -1, "reason": "sale"}')).status === 200 ? 1 : 0;
  /** One sale read-then-write: its requests (GET and PATCH pairs) when a PATCH answered 200. */
  const byIfMatch = async () => {
    for (let requests = 2; ; requests += 2) {
      const read = await send('GET');
      const { quantity } = (await read.json()) as { quantity: number };
      const etag = read.headers.get('etag') as string;
      const body = `{"quantity": ${quantity - 1}, "reason": "sale"}`;
      const written = await send('PATCH', body, { 'If-Match': etag });
      await written.arrayBuffer();
      if (written.status === 200) return requests;
      if (written.status !== 412) throw new Error(`read-then-PATCH answered ${written.status}`);
    }
  };
  const rush = async (sale: () => Promise<number>) => {
    const [times, counts] = [[] as number[], [] as number[]];
    let wallMs = 0;
    for (let round = 0; round < rounds; round++) {
      await store.putMany([{ petId: '1', quantity: tills, status: 'available' }]);
      const start = performance.now();
      await Promise.all(
        Array.from({ length: tills }, async () => {
          const began = performance.now();
          counts.push(await sale());
          times.push(performance.now() - began);
        }),
      );
      wallMs += performance.now() - start;
      const left = (await store.get('1'))?.quantity;
      if (left !== 0) throw new Error(`a rush of ${tills} on a stock of ${tills} left ${left}`);
    }
    const sold = counts.filter((count) => count > 0).length;
    if (sold !== tills * rounds) throw new Error(`${sold} sales answered 200, not ${tills * rounds}`);
    const requestsPerSale = counts.reduce((sum, count) => sum + count, 0) / sold;
    return { salesPerSecond: (sold / wallMs) * 1000, p99Ms: quantile(times, 0.99), requestsPerSale };
  };
  try {
    await store.putMany([{ petId: '1', quantity: tills, status: 'available' }]);
    await send('GET').then((response) => response.arrayBuffer()); // starts the functions' environments
    const delta = await rush(byDelta);
    const ifMatch = await rush(byIfMatch);
    for (const [name, { salesPerSecond, p99Ms, requestsPerSale }] of [
      ['adjustBy -1', delta],
      ['GET, then If-Match PATCH', ifMatch],
    ] as const) {
      indented(
        `${name.padEnd(26)} ${salesPerSecond.toFixed(0).padStart(6)} sales/s  p99 ${p99Ms.toFixed(0).padStart(6)} ms  ${requestsPerSale.toFixed(1)} requests per sale`,
      );
    }
    return { tills, rounds, delta, ifMatch };
  } finally {
    await server.close();
  }
}
