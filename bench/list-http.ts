/** List scaling over HTTP through the local API serving the synthesized bundles: docs/performance.md "How each figure is taken". */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDb, type Template } from '@pet-store/local-aws';
import { ensureTables } from '#lib/admin/tables.ts';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { type InventoryItem, inventoryJson, petStatuses } from '#lib/inventory/inventory-item.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { inventoryStore, type InventoryStore as S } from '#lib/inventory/store.ts';
import { localTableNames } from '#local/settings.ts';
import { patchedAssembly } from '#test/support/patched-assembly.ts';
import { attachMeter, documentClientAt, peakGrowth, quantile, startServer } from './processes.ts';

/**
 * Entries `from` to `to` (exclusive) of a deterministic sequence: distinct petIds over the whole int64 range
 * (i * odd multiplier mod 2^63, half negated), every quantity 0..999 and status.
 */
export function generate(from: number, to: number): InventoryItem[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    const magnitude = (BigInt(i + 1) * 6364136223846793005n) % 2n ** 63n;
    const status = petStatuses[i % petStatuses.length] as InventoryItem['status'];
    return { petId: (i % 2 === 0 ? magnitude : -magnitude).toString(), quantity: i % 1000, status };
  });
}

/** One list over HTTP: ms to the first body byte and to the end, and with `keep` the body. @throws unless a complete 200 array */
export async function timedList(url: string, apiKey: string, keep = false) {
  const start = performance.now();
  const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` } });
  const [kept, at] = [[] as Uint8Array[], { firstByteMs: 0, last: 0 }];
  for await (const chunk of response.body ?? []) {
    at.firstByteMs ||= performance.now() - start;
    at.last = chunk.at(-1) ?? 0;
    if (keep) kept.push(chunk);
  }
  if (response.status !== 200 || at.last !== 0x5d) throw new Error(`incomplete list (${response.status})`);
  return {
    firstByteMs: at.firstByteMs,
    totalMs: performance.now() - start,
    body: Buffer.concat(kept).toString(),
  };
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
 * The assembly without the staging stack's stream mappings (its other files linked): a server on a grown data
 * folder does not consume the change records of its loading (docs/performance.md "How each figure is taken").
 */
export function withoutEventPath(assemblyDir: string): Promise<string> {
  const streamMapping = ({ Type, Properties }: Template['Resources'][string]) =>
    Type === 'AWS::Lambda::EventSourceMapping' &&
    JSON.stringify(Properties?.EventSourceArn).includes('StreamArn');
  const keep = (resources: Template['Resources']) =>
    Object.fromEntries(Object.entries(resources).filter(([, resource]) => !streamMapping(resource)));
  return patchedAssembly((template) => ({ ...template, Resources: keep(template.Resources) }), assemblyDir);
}

/**
 * Grows the table through `sizes` in a data folder of the embedded DynamoDB, and at each size starts the
 * server afresh on it, as `npm start` runs (docs/performance.md "How each figure is taken"); a failed size ends the run.
 */
export async function measureListOverHttp(
  options: { assemblyDir: string; sizes: readonly number[]; runs: number },
  log: (line: string) => void,
) {
  const [dataDir, API_KEY] = [await mkdtemp(join(tmpdir(), 'pet-store-bench-data-')), generateApiKey()];
  const assembly = await withoutEventPath(options.assemblyDir);
  // Medians in ms; the server's peak growth of its whole (VmHWM) and anonymous (RssAnon) memory over its first list.
  const results: Record<
    'entries' | 'totalMs' | 'firstByteMs' | 'rawMs' | 'readUnits' | 'peakRssMb' | 'peakAnonMb',
    number
  >[] = [];
  let loaded = 0;
  try {
    for (const entries of [...options.sizes].sort((a, b) => a - b)) {
      const loadStart = performance.now();
      await load(dataDir, loaded, entries);
      log(
        `${entries} entries loaded (${((entries - loaded) / ((performance.now() - loadStart) / 1000)).toFixed(0)} per s)`,
      );
      loaded = entries;
      const server = await startServer(assembly, { DATA_DIR: dataDir, API_KEY });
      const metered = documentClientAt(server.endpoint, server.credentials);
      const [meter, table] = [attachMeter(metered), localTableNames().inventory];
      const [store, meteredStore] = [server.client, metered].map((c) => inventoryStore(c, table)) as [S, S];
      const rawRead = async (from: S) => {
        for await (const _batch of from.listSorted());
      };
      const list = (keep?: boolean) => timedList(`${server.baseUrl}/inventory`, API_KEY, keep);
      try {
        // A one-entry page first starts the functions' execution environments, so the peak is the list's own.
        await timedList(`${server.baseUrl}/inventory?limit=1`, API_KEY);
        const { result, peakRssMb, peakAnonMb } = await peakGrowth(server.pid, () => list(true));
        const sorted = generate(0, entries).sort((a, b) => comparePetIds(a.petId, b.petId));
        if (result.body !== inventoryJson(sorted))
          throw new Error('not every entry in petId order, digit for digit');
        log(`${entries}: the list is the whole table, sorted and digit-exact`);
        meter.take();
        await rawRead(meteredStore);
        const readUnits = meter.take().capacityUnits;
        // The server is fresh: lists of about 20,000 entries in all first, so small sizes are timed warm too.
        for (let i = 0; i < Math.ceil(20_000 / entries); i++) await list();
        const runs: { firstByteMs: number; totalMs: number; rawMs: number }[] = [];
        for (let run = 0; run < options.runs; run++) {
          const { firstByteMs, totalMs } = await list();
          const start = performance.now();
          await rawRead(store);
          runs.push({ firstByteMs, totalMs, rawMs: performance.now() - start });
        }
        const median = (key: keyof (typeof runs)[0]) =>
          quantile(
            runs.map((r) => r[key]),
            0.5,
          );
        const [totalMs, firstByteMs, rawMs] = [median('totalMs'), median('firstByteMs'), median('rawMs')];
        results.push({ entries, totalMs, firstByteMs, rawMs, peakRssMb, peakAnonMb, readUnits });
        log(
          `${entries}: list ${totalMs.toFixed(0)} ms (first byte ${firstByteMs.toFixed(1)} ms), raw ${rawMs.toFixed(0)} ms,` +
            ` server peak RSS +${peakRssMb.toFixed(1)} MB (anonymous +${peakAnonMb.toFixed(1)} MB), ${readUnits} RRU per list`,
        );
      } catch (error) {
        log(`${entries}: the list failed (${(error as Error).message}); larger sizes skipped`);
        break;
      } finally {
        await server.close();
        metered.destroy();
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(assembly, { recursive: true, force: true });
  }
  return results;
}
