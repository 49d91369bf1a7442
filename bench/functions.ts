/**
 * The functions' own costs: module load time of each bundle in fresh processes, warm overhead of three handlers
 * over the store call each wraps, CPU per KB of hostile write bodies (docs/performance.md "How each figure is
 * taken"). Warm and bodies run in a child process, so the environment they set stays there.
 */

import { execFile } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { attachMeter, childMain, inChild, quantile } from './processes.ts';

/** A bundle to load, with the environment its function gets. */
export type Loadable = { name: string; file: string; environment: Record<string, string> };

/** The load child: streaming globals, then the import timed in wall clock and CPU (user + system) ms, as JSON. */
const loadProgram = `(await import(process.argv[2])).installStreamingRuntime();
const cpu = process.cpuUsage(); const start = performance.now();
await import(process.argv[1]);
const { user, system } = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify([performance.now() - start, (user + system) / 1000]));`;

/** Median import ms (CPU and wall clock) of each bundle over `rounds` fresh processes, bundles in rotation. */
export async function measureLoadTimes(bundles: readonly Loadable[], rounds: number) {
  // The local AWS's entry, whose `installStreamingRuntime` sets the streaming globals as Lambda's runtime does.
  const runtime = import.meta.resolve('@pet-store/local-aws');
  const sample = async ({ file, environment }: Loadable): Promise<[number, number]> => {
    const args = ['--input-type=module', '-e', loadProgram, pathToFileURL(file).href, runtime];
    const env = { PATH: process.env.PATH ?? '', ...environment, NODE_OPTIONS: '--enable-source-maps' };
    return JSON.parse((await promisify(execFile)(process.execPath, args, { env })).stdout);
  };
  const samples = bundles.map(() => [] as [number, number][]);
  for (const bundle of bundles) await sample(bundle);
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < bundles.length; i++) {
      const index = (round + i) % bundles.length;
      samples[index]?.push(await sample(bundles[index] as Loadable));
    }
  return bundles.map(({ name }, i) => {
    const [wall, cpu] = [0, 1].map((k) => quantile(samples[i]?.map((s) => s[k] as number) ?? [], 0.5));
    return { name, wallMs: wall as number, cpuMs: cpu as number };
  });
}

/** Body sizes in bytes: 1 KB, 64 KB, 1 MB and 5.9 MB (the event stays under Lambda's 6 MB invocation payload). */
export const bodySizes = [1, 64, 1024, 5.9 * 1024].map((kb) => Math.floor(kb * 1024));

/** The write operations: handler module, request, the members of a valid body and its integer member. */
const writes = [
  ['updateInventory', 'update-inventory', 'PATCH', '/inventory/{petId}', '/inventory/7', '', 'quantity'],
  ['addPet', 'add-pet', 'POST', '/pets', '/pets', '"name":"Rex",', 'id'],
  ['placeOrder', 'place-order', 'POST', '/store/orders', '/store/orders', '"petId":7,', 'quantity'],
] as const;

/** Hostile bodies of about `size` bytes around the members `valid` and the integer member `integer`. */
const kinds: Record<string, (valid: string, integer: string, size: number) => string> = {
  longNumber: (valid, integer, size) => `{${valid}"${integer}":1${'0'.repeat(size)}1}`,
  manyMembers: (valid, integer, size) =>
    `{${valid}"${integer}":5${Array.from({ length: size / 10 }, (_, i) => `,"m${i}":0`).join('')}}`,
  longString: (valid, integer, size) => `{${valid}"${integer}":"${'a'.repeat(size)}"}`,
  deepNesting: (valid, integer, size) =>
    `{${valid}"${integer}":${'['.repeat(size / 2)}${']'.repeat(size / 2)}}`,
};

/** Median µs of CPU per KB at each of {@link bodySizes}, per write and kind; each answer must be a 400. */
export const measureBodies = (quick: boolean) =>
  inChild<Awaited<ReturnType<typeof bodies>>>(import.meta.url, { quick });

async function bodies({ quick }: { quick: boolean }) {
  // Each body is refused before any DynamoDB request: the table names need not name tables.
  for (const { env } of Object.values((await import('#lib/tables.ts')).tables)) process.env[env] ??= 'bench';
  const { restProxyEvent } = await import('../test/support/lambda-events.ts');
  const { lambdaContext } = await import('@pet-store/local-aws');
  const results: { operation: string; kind: string; usPerKb: number[] }[] = [];
  for (const [operation, module, method, resource, path, valid, integer] of writes) {
    const { handler } = await import(`#functions/${module}/handler.ts`);
    const headers = { 'Content-Type': 'application/json' };
    const request = { method, resource, path, pathParameters: { petId: '7' }, headers };
    for (const [kind, body] of Object.entries(kinds)) {
      const usPerKb = bodySizes.map(() => [] as number[]);
      for (const [index, size] of bodySizes.entries()) {
        const text = body(valid, integer, size);
        for (let i = 0; i < Math.min(quick ? 20 : 200, Math.max(3, (quick ? 2e6 : 2e7) / size)); i++) {
          const event = restProxyEvent({ ...request, body: text });
          const start = process.cpuUsage();
          const { statusCode } = await handler(event, lambdaContext(operation));
          const { user, system } = process.cpuUsage(start);
          if (statusCode !== 400) throw new Error(`${operation} ${kind} ${size} B: ${statusCode}`);
          usPerKb[index]?.push((user + system) / (Buffer.byteLength(text) / 1024));
        }
      }
      results.push({ operation, kind, usPerKb: usPerKb.map((samples) => quantile(samples, 0.5)) });
    }
  }
  return results;
}

/** What a warm run needs: the stack's functions (for their environment) and the sample counts. */
type WarmOptions = { functions: readonly Loadable[]; iterations: number; warmup: number };

/** p50 ms of handler and bare call, requests of one invocation, connections opened per 100 invocations. */
export const measureWarm = (options: WarmOptions) =>
  inChild<Awaited<ReturnType<typeof warm>>>(import.meta.url, { warm: options });

/** In the child: the stack's environment, the demo inventory and a key seeded, then each subject measured. */
async function warm({ functions, iterations, warmup }: WarmOptions) {
  for (const { environment } of functions) Object.assign(process.env, environment);
  const lambda = await import('../test/support/lambda-invoke.ts');
  lambda.installStreamingRuntime();
  const { restProxyEvent, tokenAuthorizerEvent } = await import('../test/support/lambda-events.ts');
  const { scopes, stageName } = await import('#lib/api.ts');
  const { tables } = await import('#lib/tables.ts');
  const { apiKeyDigest, generateApiKey } = await import('#lib/auth/api-key.ts');
  const { createDocumentClient, documentClient } = await import('#lib/clients/dynamodb.ts');
  const bare = createDocumentClient();
  const table = (id: keyof typeof tables) => process.env[tables[id].env] as string;
  const store = (await import('#lib/inventory/store.ts')).inventoryStore(bare, table('inventory'));
  const keys = (await import('#lib/auth/key-store.ts')).keyStore(bare, table('apiKeys'));
  const { importInventoryFile } = await import('#lib/admin/inventory-writer.ts');
  await importInventoryFile((await import('#local/service.ts')).demoInventoryFile, store);
  const petId = (await store.listSorted().next()).value?.[0]?.petId ?? '1';
  const [apiKey, createdAt] = [generateApiKey(), new Date().toISOString()];
  const keyDigest = apiKeyDigest(apiKey);
  await keys.put({ keyDigest, name: 'bench', createdAt, scopes: [...scopes] });
  const methodArn = `arn:aws:execute-api:us-east-1:000000000000:bench/${stageName}/GET/inventory`;
  const [headers, resource] = [{ 'Content-Type': 'application/json' }, '/inventory/{petId}'];
  const patch = {
    method: 'PATCH',
    resource,
    path: `/inventory/${petId}`,
    pathParameters: { petId },
    headers,
  } as const;
  let quantity = 0;
  type Answer = { statusCode?: number; policyDocument?: { Statement: { Effect?: string }[] } };
  const subjects = [
    {
      ...{ name: 'listInventory', module: 'list-inventory', bare: 'listSorted' },
      event: () => restProxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory' }),
      ok: (answer: Answer) => answer.statusCode === 200,
      bareCall: async () => {
        for await (const _batch of store.listSorted());
      },
    },
    {
      ...{ name: 'updateInventory', module: 'update-inventory', bare: 'update' },
      event: () => restProxyEvent({ ...patch, body: `{"quantity":${++quantity % 1000}}` }),
      ok: (answer: Answer) => answer.statusCode === 200,
      bareCall: () =>
        store.update(petId, { quantity: ++quantity % 1000, reason: 'adjustment', keyId: 'bench' }),
    },
    {
      ...{ name: 'authorizer', module: 'authorizer', bare: 'keys.get' },
      event: () => tokenAuthorizerEvent(`Bearer ${apiKey}`, methodArn),
      ok: (answer: Answer) => answer.policyDocument?.Statement[0]?.Effect === 'Allow',
      bareCall: () => keys.get(keyDigest),
    },
  ];
  const handlers = new Map<string, unknown>();
  for (const { name, module } of subjects)
    handlers.set(name, (await import(`#functions/${module}/handler.ts`)).handler);
  /** Builds the event and context before the clock starts (as the runtime does); returns the timed invocation. */
  const prepare = ({ name, event, ok }: (typeof subjects)[number]) => {
    const [made, context] = [event(), lambda.lambdaContext(name)];
    return async () => {
      const answer = (await lambda.invokeHandler(handlers.get(name), made, context)) as Answer;
      if (!ok(answer)) throw new Error(`unexpected result of ${name}`);
    };
  };
  let sockets = 0;
  const onSocket = () => sockets++;
  subscribe('net.client.socket', onSocket);
  const socketsPer100 = new Map<string, number>();
  for (const subject of subjects) {
    sockets = 0;
    for (let i = 0; i < 100; i++) await prepare(subject)();
    socketsPer100.set(subject.name, sockets);
  }
  unsubscribe('net.client.socket', onSocket);

  const [handlerMeter, bareMeter] = [attachMeter(documentClient), attachMeter(bare)];
  const results = [];
  for (const subject of subjects) {
    const { name, bare, bareCall } = subject;
    handlerMeter.take();
    await prepare(subject)();
    const { requests } = handlerMeter.take();
    bareMeter.take();
    await bareCall();
    const bareRequests = bareMeter.take().requests;
    for (let i = 0; i < warmup; i++) {
      await prepare(subject)();
      await bareCall();
    }
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < iterations; i++) {
      // Which goes first alternates, so both see the same state of the JIT, GC and database.
      const calls = [prepare(subject), bareCall];
      for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const start = performance.now();
        await calls[which]?.();
        times[which]?.push(performance.now() - start);
      }
    }
    const [handlerMs, bareMs] = times.map((samples) => quantile(samples, 0.5)) as [number, number];
    const socketCount = socketsPer100.get(name) ?? 0;
    results.push({ name, bare, handlerMs, bareMs, requests, bareRequests, socketsPer100: socketCount });
  }
  return results;
}

await childMain(import.meta.url, (options: { quick: boolean } & { warm?: WarmOptions }) =>
  options.warm ? warm(options.warm) : bodies(options),
);
