/** Warm overhead of three handlers against the store call each wraps: docs/performance.md "How each figure is taken". */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { StreamingHandler } from '../test/support/lambda-events.ts';
import { childMain, inChild } from './child.ts';
import type { Loadable } from './load-time.ts';
import { quantile } from './stats.ts';

/** What a warm run needs: the stack's functions (for their environment) and the sample counts. */
export type WarmOptions = { functions: readonly Loadable[]; iterations: number; warmup: number };

/** Figures of one function: p50 ms of handler and bare call, requests of one invocation, connections/100. */
export interface WarmResult {
  name: string;
  bare: string;
  handlerMs: number;
  bareMs: number;
  requests: number;
  bareRequests: number;
  socketsPer100: number;
}

/** Forks this module and returns its measurements. */
export function measureWarm(options: WarmOptions): Promise<WarmResult[]> {
  return inChild(import.meta.url, options);
}

/** Runs in the child: sets the stack's environment, seeds the demo inventory and a key, measures. */
async function run({ functions, iterations, warmup }: WarmOptions): Promise<WarmResult[]> {
  for (const { environment } of functions) Object.assign(process.env, environment);
  const { installStreamingRuntime, collectStreamed, lambdaContext } = await import(
    '../test/support/lambda-invoke.ts'
  );
  installStreamingRuntime();
  const { demoInventoryFile } = await import('#local/service.ts');
  const { importInventoryFile } = await import('#lib/admin/inventory-writer.ts');
  const { scopes, stageName } = await import('#lib/api.ts');
  const { tables } = await import('#lib/tables.ts');
  const { apiKeyDigest, generateApiKey } = await import('#lib/auth/api-key.ts');
  const { keyStore } = await import('#lib/auth/key-store.ts');
  const { createDocumentClient, documentClient } = await import('#lib/clients/dynamodb.ts');
  const { inventoryStore } = await import('#lib/inventory/store.ts');
  const { restProxyEvent, tokenAuthorizerEvent } = await import('../test/support/lambda-events.ts');
  const { attachMeter } = await import('./meter.ts');
  const list = (await import('#functions/list-inventory/handler.ts')).handler as unknown as StreamingHandler;
  const update = (await import('#functions/update-inventory/handler.ts')).handler;
  const authorizer = (await import('#functions/authorizer/handler.ts')).handler;

  const bare = createDocumentClient();
  const store = inventoryStore(bare, process.env[tables.inventory.env] as string);
  const keys = keyStore(bare, process.env[tables.apiKeys.env] as string);
  await importInventoryFile(demoInventoryFile, store);
  const petId = (await store.listSorted().next()).value?.[0]?.petId ?? '1';
  const apiKey = generateApiKey();
  const keyDigest = apiKeyDigest(apiKey);
  await keys.put({ keyDigest, name: 'bench', createdAt: new Date().toISOString(), scopes: [...scopes] });
  const methodArn = `arn:aws:execute-api:us-east-1:000000000000:bench/${stageName}/GET/inventory`;
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`unexpected result of ${what}`);
  };
  let quantity = 0;
  const patch = { method: 'PATCH', resource: '/inventory/{petId}', path: `/inventory/${petId}` } as const;
  const subjects = [
    {
      name: 'listInventory',
      bare: 'listSorted',
      prepare: () => {
        const event = restProxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory' });
        const context = lambdaContext('listInventory');
        return async () => {
          const { statusCode } = await collectStreamed((stream) => list(event, stream, context));
          expect(statusCode === 200, 'list');
        };
      },
      bareCall: async () => {
        for await (const _batch of store.listSorted());
      },
    },
    {
      name: 'updateInventory',
      bare: 'update',
      prepare: () => {
        const body = JSON.stringify({ quantity: ++quantity % 1000 });
        const headers = { 'Content-Type': 'application/json' };
        const event = restProxyEvent({ ...patch, pathParameters: { petId }, headers, body });
        const context = lambdaContext('updateInventory');
        return async () => expect((await update(event, context)).statusCode === 200, 'update');
      },
      bareCall: () =>
        store.update(petId, { quantity: ++quantity % 1000, reason: 'adjustment', keyId: 'bench' }),
    },
    {
      name: 'authorizer',
      bare: 'keys.get',
      prepare: () => {
        const [event, context] = [
          tokenAuthorizerEvent(`Bearer ${apiKey}`, methodArn),
          lambdaContext('authorizer'),
        ];
        return async () => {
          const result = await authorizer(event, context);
          expect(result.policyDocument.Statement[0]?.Effect === 'Allow', 'authorizer');
        };
      },
      bareCall: () => keys.get(keyDigest),
    },
  ];

  let sockets = 0;
  const onSocket = () => sockets++;
  subscribe('net.client.socket', onSocket);
  const socketsPer100 = new Map<string, number>();
  for (const subject of subjects) {
    sockets = 0;
    for (let i = 0; i < 100; i++) await subject.prepare()();
    socketsPer100.set(subject.name, sockets);
  }
  unsubscribe('net.client.socket', onSocket);

  const [handlerMeter, bareMeter] = [attachMeter(documentClient), attachMeter(bare)];
  const results: WarmResult[] = [];
  for (const subject of subjects) {
    handlerMeter.take();
    await subject.prepare()();
    const { requests } = handlerMeter.take();
    bareMeter.take();
    await subject.bareCall();
    const bareRequests = bareMeter.take().requests;
    for (let i = 0; i < warmup; i++) {
      await subject.prepare()();
      await subject.bareCall();
    }
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < iterations; i++) {
      // The event is built before the clock starts (as the runtime does); which goes first alternates, so
      // both see the same state of the JIT, GC and database.
      const calls = [subject.prepare(), subject.bareCall];
      for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const start = performance.now();
        await calls[which]?.();
        times[which]?.push(performance.now() - start);
      }
    }
    const [handlerMs, bareMs] = times.map((samples) => quantile(samples, 0.5)) as [number, number];
    const socketCount = socketsPer100.get(subject.name) ?? 0;
    results.push({
      name: subject.name,
      bare: subject.bare,
      handlerMs,
      bareMs,
      requests,
      bareRequests,
      socketsPer100: socketCount,
    });
  }
  return results;
}

await childMain(import.meta.url, run);
