/** A healthy subscriber's delivery delays, alone and beside a hanging endpoint (docs/performance.md "The bench"). */
import { setTimeout as sleep } from 'node:timers/promises';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { callApi } from '#test/support/server-process.ts';
import { temporaryDir } from '#test/support/temporary-dirs.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { median, quantile, runTool, startServer } from './processes.ts';

/**
 * `npm start --stack staging` on `assembly` with a fresh data folder, a healthy subscriber (and one that never
 * answers when `hanging`), the seeded pets 1-10 PATCHed at 10 changes per second (docs/contract.md "History and
 * events") for `seconds`: ms from each write's answer to the healthy endpoint's first receipt of it.
 */
export async function measureWebhookDelays(assembly: string, hanging: boolean, seconds: number) {
  const [DATA_DIR, API_KEY] = [await temporaryDir('bench-webhooks-'), generateApiKey()];
  const server = await startServer(assembly, { DATA_DIR, API_KEY });
  const healthy = await startWebhookReceiver();
  const receivers = [healthy, ...(hanging ? [await startWebhookReceiver()] : [])];
  try {
    for (const other of receivers.slice(1)) other.answer = { stallMs: 3_600_000 };
    for (const { endpoint } of receivers) await runTool('ops/webhooks.ts', ['add', endpoint], DATA_DIR);
    const [answeredAt, writes, started] = [new Map<number, number>(), [] as Promise<void>[], Date.now()];
    for (let k = 1; k <= 10 * seconds; k++) {
      await sleep(Math.max(0, started + (k - 1) * 100 - Date.now()));
      const write = callApi(
        server,
        API_KEY,
        'PATCH',
        `/inventory/${(k % 10) + 1}`,
        `{"quantity":${1000 + k}}`,
      );
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
    const deadline = Date.now() + 60_000;
    while (delays().length < answeredAt.size && Date.now() < deadline) await sleep(200);
    const measured = delays();
    const [p50Ms, p99Ms, maxMs] = [median(measured), quantile(measured, 0.99), Math.max(...measured)];
    return { hanging, changes: answeredAt.size, delivered: measured.length, p50Ms, p99Ms, maxMs };
  } finally {
    await server.close();
    await Promise.all(receivers.map(({ close }) => close()));
  }
}
