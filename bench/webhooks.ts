/** A healthy subscriber's delivery delays, alone and beside a hanging endpoint (docs/performance.md "The bench"). */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startScript, stop } from './processes.ts';
import { quantile } from './stats.ts';

/** Changes per second and for how long (docs/contract.md "History and events": 10 changes per second). */
const changesPerSecond = 10;

/** Milliseconds from each write's answer to the healthy endpoint's first receipt of it: p50, p99, max. */
export interface WebhookDelays {
  hanging: boolean;
  changes: number;
  delivered: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** A local endpoint that answers 204 at once, or never (`answer` false); records each body's arrival. */
async function endpoint(answer: boolean) {
  const received: { at: number; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ at: Date.now(), body });
      if (answer) response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { url, received, close };
}

/**
 * `npm start --stack staging` on `assembly` with a fresh data folder, a healthy subscriber (and a hanging one
 * when `hanging`), the seeded pets 1-10 PATCHed at 10 changes per second for `seconds`.
 */
export async function measureWebhookDelays(assembly: string, hanging: boolean, seconds: number) {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-webhooks-'));
  const env = { DATA_DIR: dataDir, PORT: '0', API_KEY_RATE: '1000', POWERTOOLS_LOG_LEVEL: 'ERROR' };
  const ready = /^Pet store inventory API at (\S+) [\s\S]*^Try: curl -H 'Authorization: Bearer (\S+)'/m;
  const args = ['--stack', 'staging', '--assembly', assembly];
  const { child, match } = await startScript('local/server.ts', args, env, ready);
  const [, baseUrl, key] = match as unknown as [string, string, string];
  const endpoints = [await endpoint(true), ...(hanging ? [await endpoint(false)] : [])];
  try {
    const tool = new URL('../ops/webhooks.ts', import.meta.url).pathname;
    for (const { url } of endpoints)
      await promisify(execFile)(process.execPath, [tool, 'add', url], { env: { ...process.env, ...env } });
    const answeredAt = new Map<number, number>();
    const started = Date.now();
    const writes: Promise<void>[] = [];
    for (let k = 1; k <= changesPerSecond * seconds; k++) {
      await sleep(started + ((k - 1) * 1000) / changesPerSecond - Date.now());
      const request = { method: 'PATCH', body: `{"quantity": ${1000 + k}}` };
      const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
      const write = fetch(`${baseUrl}/inventory/${(k % 10) + 1}`, { ...request, headers });
      writes.push(write.then(async (response) => void (response.ok && answeredAt.set(k, Date.now()))));
    }
    await Promise.all(writes);
    const [healthy] = endpoints as [Awaited<ReturnType<typeof endpoint>>];
    const delays = () => {
      const first = new Map<number, number>();
      for (const { at, body } of healthy.received) {
        const k = Number(/"quantity":\{"from":\d+,"to":(\d+)\}/.exec(body)?.[1]) - 1000;
        if (answeredAt.has(k) && !first.has(k)) first.set(k, at - (answeredAt.get(k) as number));
      }
      return [...first.values()];
    };
    const deadline = Date.now() + 60_000;
    while (delays().length < answeredAt.size && Date.now() < deadline) await sleep(200);
    const measured = delays();
    return {
      hanging,
      changes: answeredAt.size,
      delivered: measured.length,
      p50Ms: quantile(measured, 0.5),
      p99Ms: quantile(measured, 0.99),
      maxMs: Math.max(...measured),
    } satisfies WebhookDelays;
  } finally {
    await stop(child);
    await Promise.all(endpoints.map(({ close }) => close()));
    await rm(dataDir, { recursive: true, force: true });
  }
}
