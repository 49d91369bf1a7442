/** The import tool with the event path off and on, and a list during its backlog: docs/performance.md "How each figure is taken". */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { temporaryDir } from '#test/support/temporary-dirs.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';
import { generate, withoutEventPath } from './list-http.ts';
import { indented, runTool, startServer } from './processes.ts';

/**
 * Imports `entries` rows of a CSV file with `npm run import` into a fresh `npm start --stack staging` without and
 * with its stream mappings. With them: the rows the history holds 2 s after the import's end (the mapping's 1 s
 * batching window and a poll; the file's rows are looked up by halving, the consumer taking them in file order),
 * then the server's peak growth over a list of the whole table. Rates in rows/s, memory in MB.
 */
export async function measureEventPath(assemblyDir: string, entries: number) {
  const scratch = await temporaryDir('pet-store-bench-import-');
  const [file, items, API_KEY] = [join(scratch, 'inventory.csv'), generate(0, entries), generateApiKey()];
  const rows = items.map(({ petId, quantity, status }) => `${petId},${quantity},${status}\n`);
  await writeFile(file, ['petId,quantity,status\n', ...rows]);
  const figures = { entries, importOff: 0, importOn: 0, drained: 0, peakAnonMb: 0, peakRssMb: 0 };
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
      await sleep(2000);
      const inHistory = async (index: number) => {
        const query = { TableName: testTableNames.inventoryHistory, KeyConditionExpression: 'petId = :id' };
        const values = { ExpressionAttributeValues: { ':id': BigInt(items[index]?.petId ?? 0) }, Limit: 1 };
        return ((await server.client.send(new QueryCommand({ ...query, ...values }))).Count ?? 0) > 0;
      };
      let [drained, high] = [0, entries];
      while (drained < high) {
        const middle = (drained + high) >> 1;
        [drained, high] = (await inHistory(middle)) ? [middle + 1, high] : [drained, middle];
      }
      figures.drained = drained / seconds;
      const list = await server.listPeak();
      Object.assign(figures, { peakAnonMb: list.peakAnonMb, peakRssMb: list.peakRssMb });
      const took = list.result.totalMs.toFixed(0);
      indented(`${drained} rows in the history 2 s after; the list beside the backlog took ${took} ms`);
    } finally {
      await server.close();
    }
  }
  return figures;
}
