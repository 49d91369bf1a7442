/** List scaling over HTTP through the local API serving the synthesized bundles: docs/performance.md "How each figure is taken". */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectLocalDynamoDb, startDynamoDb, type Template } from '@pet-store/local-aws';
import { stackName } from '#infra/settings.ts';
import { ensureTables } from '#lib/admin/tables.ts';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { type InventoryItem, inventoryJson, petStatuses } from '#lib/inventory/inventory-item.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { inventoryStore, type InventoryStore as S } from '#lib/inventory/store.ts';
import { localTableNames } from '#local/settings.ts';
import { attachMeter } from './meter.ts';
import { documentClientAt, startScript, stop } from './processes.ts';
import { quantile } from './stats.ts';

/** Figures at one size: medians in ms, the server's peak memory growth over one list in MB, read units. */
export interface ListResult {
  entries: number;
  totalMs: number;
  firstByteMs: number;
  rawMs: number;
  /** The server's peak resident set (VmHWM) and anonymous memory (RssAnon) over its first list, less before. */
  peakRssMb: number;
  peakAnonMb: number;
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

/** Resident memory figures of process `pid` (Linux `/proc/<pid>/status`), in MB. */
async function memoryMb(pid: number) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM'), anon: field('RssAnon') };
}

/** The server's peak growth over `work`: VmHWM (reset by `clear_refs`) and RssAnon (every 10 ms), less before. */
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

/** Writes entries `from` to `to` of {@link generate} into the store of `dataDir` (its tables created first). */
async function load(dataDir: string, from: number, to: number) {
  const db = await startDynamoDb({ dataDir });
  const client = documentClientAt(db.endpoint, db.credentials);
  try {
    await ensureTables(client, localTableNames());
    const store = inventoryStore(client, localTableNames().inventory);
    for (let start = from; start < to; start += 8000) {
      const chunk = generate(start, Math.min(start + 8000, to));
      await Promise.all(
        [0, 1, 2, 3, 4, 5, 6, 7].map((i) => store.putMany(chunk.slice(i * 1000, i * 1000 + 1000))),
      );
    }
  } finally {
    client.destroy();
    await db.close();
  }
}

/**
 * A copy of the assembly without the staging stack's stream mappings: the server the bench starts on a grown
 * data folder does not consume the change records of the bench's own loading (up to a million), so the list's
 * time and memory are the list's own (docs/performance.md "How each figure is taken").
 */
async function listOnlyAssembly(assemblyDir: string): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'pet-store-bench-assembly-'));
  await cp(assemblyDir, copy, { recursive: true });
  const file = join(copy, `${stackName('staging')}.template.json`);
  const template = JSON.parse(await readFile(file, 'utf8')) as Template;
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const source = JSON.stringify(resource.Properties?.EventSourceArn ?? '');
    if (resource.Type === 'AWS::Lambda::EventSourceMapping' && source.includes('StreamArn')) {
      delete template.Resources[logicalId];
    }
  }
  await writeFile(file, JSON.stringify(template));
  return copy;
}

/**
 * Grows the table through `sizes` in a data folder of the embedded DynamoDB, and at each size starts the
 * server afresh on it, as `npm start` runs (docs/performance.md "How each figure is taken"); a failed size ends the run.
 */
export async function measureListOverHttp(
  options: { assemblyDir: string; sizes: readonly number[]; runs: number },
  log: (line: string) => void,
): Promise<ListResult[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pet-store-bench-data-'));
  const apiKey = generateApiKey();
  // The key's rate (requests per second) is far above the lists', so the usage plan never answers 429 here.
  const rates = { API_KEY_RATE: '10000', POWERTOOLS_LOG_LEVEL: 'ERROR' };
  const env = { DATA_DIR: dataDir, API_KEY: apiKey, PORT: '0', ...rates };
  const assembly = await listOnlyAssembly(options.assemblyDir);
  const args = ['--stack', 'staging', '--assembly', assembly];
  const ready = /^Pet store inventory API at (\S+) [\s\S]*^Try: curl /m;
  const results: ListResult[] = [];
  let loaded = 0;
  try {
    for (const entries of [...options.sizes].sort((a, b) => a - b)) {
      const loadStart = performance.now();
      await load(dataDir, loaded, entries);
      const rate = (entries - loaded) / ((performance.now() - loadStart) / 1000);
      log(`${entries} entries loaded (${rate.toFixed(0)} per s)`);
      loaded = entries;
      const { child, match } = await startScript('local/server.ts', args, env, ready);
      const [baseUrl, pid] = [match[1] as string, child.pid as number];
      const { endpoint, credentials } = await connectLocalDynamoDb(dataDir);
      const [client, meteredClient] = [
        documentClientAt(endpoint, credentials),
        documentClientAt(endpoint, credentials),
      ];
      const [meter, table] = [attachMeter(meteredClient), localTableNames().inventory];
      const [store, metered] = [client, meteredClient].map((c) => inventoryStore(c, table)) as [S, S];
      const rawRead = async (from: S) => {
        for await (const _batch of from.listSorted());
      };
      try {
        // A one-entry page first starts the functions' execution environments, so the peak is the list's own.
        await timedList(`${baseUrl}/inventory?limit=1`, apiKey);
        const { result, peakRssMb, peakAnonMb } = await peakGrowth(pid, () =>
          timedList(`${baseUrl}/inventory`, apiKey, true),
        );
        const sorted = generate(0, entries).sort((a, b) => comparePetIds(a.petId, b.petId));
        if (result.body !== inventoryJson(sorted))
          throw new Error('not every entry in petId order, digit for digit');
        log(`${entries}: the list is the whole table, sorted and digit-exact`);
        meter.take();
        await rawRead(metered);
        const readUnits = meter.take().capacityUnits;
        // The server is fresh: lists of about 20,000 entries in all first, so small sizes are timed warm too.
        for (let i = 0; i < Math.ceil(20_000 / entries); i++) await timedList(`${baseUrl}/inventory`, apiKey);
        const runs: { firstByteMs: number; totalMs: number; rawMs: number }[] = [];
        for (let run = 0; run < options.runs; run++) {
          const list = await timedList(`${baseUrl}/inventory`, apiKey);
          const start = performance.now();
          await rawRead(store);
          runs.push({ ...list, rawMs: performance.now() - start });
        }
        const [totalMs, firstByteMs, rawMs] = (['totalMs', 'firstByteMs', 'rawMs'] as const).map((key) =>
          quantile(
            runs.map((r) => r[key]),
            0.5,
          ),
        ) as [number, number, number];
        results.push({ entries, totalMs, firstByteMs, rawMs, peakRssMb, peakAnonMb, readUnits });
        log(
          `${entries}: list ${totalMs.toFixed(0)} ms (first byte ${firstByteMs.toFixed(1)} ms), raw ${rawMs.toFixed(0)} ms,` +
            ` server peak RSS +${peakRssMb.toFixed(1)} MB (anonymous +${peakAnonMb.toFixed(1)} MB), ${readUnits} RRU per list`,
        );
      } catch (error) {
        log(`${entries}: the list failed (${(error as Error).message}); larger sizes skipped`);
        break;
      } finally {
        await stop(child);
        client.destroy();
        meteredClient.destroy();
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(assembly, { recursive: true, force: true });
  }
  return results;
}
