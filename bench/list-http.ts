/** List scaling over HTTP through the local API serving the synthesized bundles: README "Performance". */
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { localTableNames } from '#infra/local/dynamodb.ts';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { type InventoryItem, inventoryJson, petStatuses } from '#lib/inventory/inventory-item.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { inventoryStore, type InventoryStore as S } from '#lib/inventory/store.ts';
import { attachMeter } from './meter.ts';
import { startBenchDynamoDb, startScript, stop } from './processes.ts';
import { quantile } from './stats.ts';

/** Figures at one size: medians in ms, memory growth in MB, read units of one list. */
export interface ListResult {
  entries: number;
  totalMs: number;
  firstByteMs: number;
  rawMs: number;
  peakMemoryMb: number;
  readUnits: number;
}

/**
 * Entries `from` to `to` (exclusive) of a deterministic sequence: distinct petIds over the whole int64 range
 * (i * odd multiplier mod 2^63, half negated), every quantity 0..999 and status.
 */
function generate(from: number, to: number): InventoryItem[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const magnitude = (BigInt(i + 1) * 6364136223846793005n) % 2n ** 63n;
    const status = petStatuses[i % petStatuses.length] as InventoryItem['status'];
    return { petId: (i % 2 === 0 ? magnitude : -magnitude).toString(), quantity: i % 1000, status };
  });
}

/**
 * One list over HTTP: ms to the first body byte and to the end, and with `keep` the body.
 * @throws unless it is a complete 200 array
 */
function timedList(url: string, apiKey: string, keep = false) {
  const start = performance.now();
  return new Promise<{ firstByteMs: number; totalMs: number; body: string }>((resolve, reject) => {
    request(url, { headers: { Authorization: `Bearer ${apiKey}` } }, (response) => {
      let firstByteMs = 0;
      let last = 0;
      const kept: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        firstByteMs ||= performance.now() - start;
        last = chunk[chunk.length - 1] ?? 0;
        if (keep) kept.push(chunk);
      });
      response.on('end', () => {
        const body = Buffer.concat(kept).toString();
        if (response.statusCode === 200 && last === 0x5d)
          resolve({ firstByteMs, totalMs: performance.now() - start, body });
        else reject(new Error(`incomplete list (${response.statusCode})`));
      });
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** `VmRSS` or `VmHWM` of process `pid`, in MB. */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024;
}

/** Grows the table through `sizes` and measures each (README "Performance"); a failed size ends the run. */
export async function measureListOverHttp(
  options: { assemblyDir: string; sizes: readonly number[]; runs: number },
  log: (line: string) => void,
): Promise<ListResult[]> {
  const db = await startBenchDynamoDb();
  const [client, meteredClient] = [db.documentClient(), db.documentClient()];
  const [meter, table] = [attachMeter(meteredClient), localTableNames().inventory];
  const [store, metered] = [client, meteredClient].map((c) => inventoryStore(c, table)) as [S, S];
  const rawRead = async (from: S) => {
    for await (const _batch of from.listSorted());
  };
  const apiKey = generateApiKey();
  // The key's rate (requests per second) is far above the lists', so the usage plan never answers 429 here.
  const env = { ...db.credentials, AWS_ENDPOINT_URL_DYNAMODB: db.endpoint, API_KEY: apiKey, PORT: '0' };
  const rates = { API_KEY_RATE: '10000', POWERTOOLS_LOG_LEVEL: 'ERROR' };
  const args = ['--stack', 'staging', '--assembly', options.assemblyDir];
  const ready = /^Pet store inventory API at (\S+) [\s\S]*^Try: curl /m;
  const { child, match } = await startScript('infra/local/server.ts', args, { ...env, ...rates }, ready);
  const baseUrl = match[1] as string;
  const pid = child.pid as number;
  const results: ListResult[] = [];
  try {
    let loaded = 0;
    for (const entries of [...options.sizes].sort((a, b) => a - b)) {
      const loadStart = performance.now();
      for (let from = loaded; from < entries; from += 8000) {
        const chunk = generate(from, Math.min(from + 8000, entries));
        await Promise.all(
          [0, 1, 2, 3, 4, 5, 6, 7].map((i) => store.putMany(chunk.slice(i * 1000, i * 1000 + 1000))),
        );
      }
      const rate = (entries - loaded) / ((performance.now() - loadStart) / 1000);
      log(`${entries} entries loaded (${rate.toFixed(0)} per s)`);
      loaded = entries;
      try {
        const { body } = await timedList(`${baseUrl}/inventory`, apiKey, true);
        const sorted = generate(0, entries).sort((a, b) => comparePetIds(a.petId, b.petId));
        if (body !== inventoryJson(sorted))
          throw new Error('not every entry in petId order, digit for digit');
        log(`${entries}: the list is the whole table, sorted and digit-exact`);
        meter.take();
        await rawRead(metered);
        const readUnits = meter.take().capacityUnits;
        const runs: { firstByteMs: number; totalMs: number; rawMs: number; peakMemoryMb: number }[] = [];
        for (let run = 0; run < options.runs; run++) {
          writeFileSync(`/proc/${pid}/clear_refs`, '5');
          const before = memoryMb(pid, 'VmRSS');
          const list = await timedList(`${baseUrl}/inventory`, apiKey);
          const peakMemoryMb = memoryMb(pid, 'VmHWM') - before;
          const start = performance.now();
          await rawRead(store);
          runs.push({ ...list, peakMemoryMb, rawMs: performance.now() - start });
        }
        const median = (key: keyof (typeof runs)[number]) =>
          quantile(
            runs.map((r) => r[key]),
            0.5,
          );
        const [totalMs, firstByteMs, rawMs] = [median('totalMs'), median('firstByteMs'), median('rawMs')];
        results.push({
          entries,
          totalMs,
          firstByteMs,
          rawMs,
          peakMemoryMb: median('peakMemoryMb'),
          readUnits,
        });
        log(
          `${entries}: list ${totalMs.toFixed(0)} ms (first byte ${firstByteMs.toFixed(1)} ms), raw ${rawMs.toFixed(0)} ms,` +
            ` peak +${median('peakMemoryMb').toFixed(1)} MB, ${readUnits} RRU per list`,
        );
      } catch (error) {
        log(`${entries}: the list failed (${(error as Error).message}); larger sizes skipped`);
        break;
      }
    }
  } finally {
    await stop(child);
    client.destroy();
    meteredClient.destroy();
    await db.close();
  }
  return results;
}
