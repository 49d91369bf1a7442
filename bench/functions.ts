/** The functions' own costs: load time, warm overhead, hostile bodies (docs/performance.md "How each figure is taken"). */
import { execFile } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { importInventoryFile } from '#lib/admin/inventory-writer.ts';
import { scopes, stageName } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { keyStore } from '#lib/auth/key-store.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { tables } from '#lib/tables.ts';
import { restProxyEvent, tokenAuthorizerEvent } from '#test/support/lambda-events.ts';
import { installStreamingRuntime, invokeHandler, lambdaContext } from '#test/support/lambda-invoke.ts';
import { serviceTables, storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';
import { startTestStore } from '#test/support/testing-kit.ts';
import { attachMeter, childMain, inChild, median, medians } from './processes.ts';

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
  const runtime = import.meta.resolve('local-aws');
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
    const [wallMs, cpuMs] = medians(samples[i] ?? []) as [number, number];
    return { name, wallMs, cpuMs };
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

/** Hostile values of about `size` bytes for the integer member, after the valid members. */
const kinds: Record<string, (size: number) => string> = {
  longNumber: (size) => `1${'0'.repeat(size)}1`,
  manyMembers: (size) => `5${Array.from({ length: size / 10 }, (_, i) => `,"m${i}":0`).join('')}`,
  longString: (size) => `"${'a'.repeat(size)}"`,
  deepNesting: (size) => `${'['.repeat(size / 2)}${']'.repeat(size / 2)}`,
};

const headers = { 'Content-Type': 'application/json' };

/** Median µs of CPU per KB at each of {@link bodySizes}, per write and kind; each answer must be a 400. */
export const measureBodies = (quick: boolean) => inChild(import.meta.url, bodies, { quick });

async function bodies({ quick }: { quick: boolean }) {
  // Each body is refused before any DynamoDB request: the table names need not name tables.
  for (const { env } of Object.values(tables)) process.env[env] ??= 'bench';
  const results: { operation: string; kind: string; usPerKb: number[] }[] = [];
  for (const [operation, module, method, resource, path, valid, integer] of writes) {
    const { handler } = await import(`#functions/${module}/handler.ts`);
    const request = { method, resource, path, pathParameters: { petId: '7' }, headers };
    for (const [kind, value] of Object.entries(kinds)) {
      const usPerKb = bodySizes.map(() => [] as number[]);
      for (const [index, size] of bodySizes.entries()) {
        const text = `{${valid}"${integer}":${value(size)}}`;
        for (let i = 0; i < Math.min(quick ? 20 : 200, Math.max(3, (quick ? 2e6 : 2e7) / size)); i++) {
          const event = restProxyEvent({ ...request, body: text });
          const start = process.cpuUsage();
          const { statusCode } = await handler(event, lambdaContext(operation));
          const { user, system } = process.cpuUsage(start);
          if (statusCode !== 400) throw new Error(`${operation} ${kind} ${size} B: ${statusCode}`);
          usPerKb[index]?.push((user + system) / (Buffer.byteLength(text) / 1024));
        }
      }
      results.push({ operation, kind, usPerKb: usPerKb.map(median) });
    }
  }
  return results;
}

/** p50 ms of handler and bare call, requests of one invocation, connections opened per 100 invocations. */
export const measureWarm = (functions: readonly Loadable[], iterations: number) =>
  inChild(import.meta.url, warm, { functions, iterations });

/** In the child: an in-memory store, the stack's environment, the demo inventory, a key; each subject measured. */
async function warm({ functions, iterations }: { functions: readonly Loadable[]; iterations: number }) {
  const db = await startTestStore({ tables: serviceTables });
  for (const { environment } of functions) Object.assign(process.env, environment, storeVariables(db));
  installStreamingRuntime();
  // The shared client reads the environment at import.
  const { createDocumentClient, documentClient } = await import('#lib/clients/dynamodb.ts');
  const bare = createDocumentClient();
  const store = inventoryStore(bare, testTableNames.inventory);
  const keys = keyStore(bare, testTableNames.apiKeys);
  await importInventoryFile((await import('#local/service.ts')).demoInventoryFile, store);
  const petId = (await store.listSorted().next()).value?.[0]?.petId ?? '1';
  const [apiKey, createdAt] = [generateApiKey(), new Date().toISOString()];
  const keyDigest = apiKeyDigest(apiKey);
  await keys.put({ keyDigest, name: 'bench', createdAt, scopes: [...scopes] });
  const methodArn = `arn:aws:execute-api:us-east-1:000000000000:bench/${stageName}/GET/inventory`;
  const [resource, path] = ['/inventory/{petId}', `/inventory/${petId}`];
  const patch = { method: 'PATCH', resource, path, pathParameters: { petId }, headers } as const;
  let quantity = 0;
  type Answer = { statusCode?: number; policyDocument?: { Statement: { Effect?: string }[] } };
  const subjects = [
    {
      ...{ name: 'listInventory', module: 'list-inventory', bare: 'listSorted' },
      event: () => restProxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory' }),
      bareCall: () => Array.fromAsync(store.listSorted()),
    },
    {
      ...{ name: 'updateInventory', module: 'update-inventory', bare: 'update' },
      event: () => restProxyEvent({ ...patch, body: `{"quantity":${++quantity % 1000}}` }),
      bareCall: () =>
        store.update(petId, { quantity: ++quantity % 1000, reason: 'adjustment', keyId: 'bench' }),
    },
    {
      ...{ name: 'authorizer', module: 'authorizer', bare: 'keys.get' },
      event: () => tokenAuthorizerEvent(`Bearer ${apiKey}`, methodArn),
      bareCall: () => keys.get(keyDigest),
    },
  ];
  const [handlerMeter, bareMeter] = [attachMeter(documentClient), attachMeter(bare)];
  let sockets = 0;
  subscribe('net.client.socket', () => sockets++);
  const results = [];
  for (const { name, module, bare, event, bareCall } of subjects) {
    const { handler } = await import(`#functions/${module}/handler.ts`);
    /** Builds the event and context before the clock starts (as the runtime does): the timed invocation. */
    const prepare = () => {
      const [made, context] = [event(), lambdaContext(name)];
      return async () => {
        const answer = (await invokeHandler(handler, made, context)) as Answer;
        if (answer.statusCode !== 200 && answer.policyDocument?.Statement[0]?.Effect !== 'Allow')
          throw new Error(`unexpected result of ${name}`);
      };
    };
    sockets = 0;
    for (let i = 0; i < 100; i++) await prepare()();
    const socketsPer100 = sockets;
    const { requests } = await handlerMeter(prepare());
    const bareRequests = (await bareMeter(bareCall)).requests;
    const times: [number[], number[]] = [[], []];
    for (let i = -iterations / 10; i < iterations; i++) {
      // Warm-up first (i < 0); which goes first alternates: both see the same state of the JIT, GC and database.
      const calls = [prepare(), bareCall];
      for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const start = performance.now();
        await calls[which]?.();
        if (i >= 0) times[which]?.push(performance.now() - start);
      }
    }
    const [handlerMs, bareMs] = times.map(median) as [number, number];
    results.push({ name, bare, handlerMs, bareMs, requests, bareRequests, socketsPer100 });
  }
  return results;
}

await childMain(import.meta.url, { bodies, warm });
