/** List scaling over HTTP through the local API serving the synthesized bundles: docs/performance.md "How each figure is taken". */
import type { Template } from '@pet-store/local-aws';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { type InventoryItem, inventoryJson, petStatuses } from '#lib/inventory/inventory-item.ts';
import { comparePetIds } from '#lib/inventory/pet-id.ts';
import { type InventoryStore, inventoryStore } from '#lib/inventory/store.ts';
import { patchedAssembly } from '#test/support/patched-assembly.ts';
import { temporaryDir } from '#test/support/temporary-dirs.ts';
import { dynamoDbClient, startTestDynamoDb, testTableNames } from '#test/support/test-dynamodb.ts';
import { attachMeter, indented, medians, startServer } from './processes.ts';

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

/** Writes entries `from` to `to` of {@link generate} into the store of `dataDir` (its tables created first). */
async function load(dataDir: string, from: number, to: number) {
  const db = await startTestDynamoDb({ dataDir });
  const store = inventoryStore(toDocumentClient(db.client), testTableNames.inventory);
  try {
    for (let start = from; start < to; start += 8000) {
      const chunk = generate(start, Math.min(start + 8000, to));
      await Promise.all(
        [0, 1, 2, 3, 4, 5, 6, 7].map((i) => store.putMany(chunk.slice(i * 1000, i * 1000 + 1000))),
      );
    }
  } finally {
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

/** The raw sorted read of the whole list through `store`, without Lambda, HTTP or JSON. */
async function rawRead(store: InventoryStore) {
  for await (const _batch of store.listSorted());
}

/**
 * Grows the table through `sizes` in a data folder of the embedded DynamoDB, and at each size starts the
 * server afresh on it, as `npm start` runs (docs/performance.md "How each figure is taken"); a failed size ends the run.
 */
export async function measureListOverHttp(assemblyDir: string, sizes: readonly number[], runs: number) {
  const [dataDir, API_KEY] = [await temporaryDir('pet-store-bench-data-'), generateApiKey()];
  const assembly = await withoutEventPath(assemblyDir);
  const results = [];
  let loaded = 0;
  for (const entries of sizes) {
    const loadStart = performance.now();
    await load(dataDir, loaded, entries);
    const perSecond = (entries - loaded) / ((performance.now() - loadStart) / 1000);
    indented(`${entries} entries loaded (${perSecond.toFixed(0)} per s)`);
    loaded = entries;
    const server = await startServer(assembly, { DATA_DIR: dataDir, API_KEY });
    const metered = toDocumentClient(dynamoDbClient(server.endpoint, server.credentials));
    const meter = attachMeter(metered);
    const [store, meteredStore] = [server.client, metered].map((c) =>
      inventoryStore(c, testTableNames.inventory),
    );
    try {
      // The server's peak growth of its whole (VmHWM) and anonymous (RssAnon) memory over its first list.
      const { result, peakRssMb, peakAnonMb } = await server.listPeak(true);
      const sorted = generate(0, entries).sort((a, b) => comparePetIds(a.petId, b.petId));
      if (result.body !== inventoryJson(sorted))
        throw new Error('not every entry in petId order, digit for digit');
      indented(`${entries}: the list is the whole table, sorted and digit-exact`);
      const readUnits = (await meter(() => rawRead(meteredStore as InventoryStore))).capacityUnits;
      // The server is fresh: lists of about 20,000 entries in all first, so small sizes are timed warm too.
      for (let i = 0; i < Math.ceil(20_000 / entries); i++) await server.list();
      const samples: number[][] = [];
      for (let run = 0; run < runs; run++) {
        const { firstByteMs, totalMs } = await server.list();
        const start = performance.now();
        await rawRead(store as InventoryStore);
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
