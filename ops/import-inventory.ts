/** The import tool, `npm run import -- <file.json|file.csv> [--env ...]`: docs/operating.md "Importing inventory". */
import { Command } from 'commander';
import type { EnvironmentName } from '#infra/settings.ts';
import { importInventoryFile } from '#lib/admin/inventory-writer.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { environmentOption, openTarget } from './target.ts';

const program = new Command('import')
  .description(
    'Import inventory entries (petId, quantity, status; optionally name, category, photoUrls, tags) from a JSON array or a CSV file with a header row.',
  )
  .argument('<file>', 'a .json or .csv file')
  .addOption(environmentOption())
  .action(async (file: string, options: { env?: EnvironmentName }) => {
    const target = await openTarget(options.env);
    let progress = false;
    try {
      const store = inventoryStore(target.client, target.tables.inventory);
      const count = await importInventoryFile(file, store, (written, total) => {
        progress = true;
        process.stderr.write(`\rimported ${written}/${total}`);
      });
      process.stderr.write('\n');
      console.log(`Imported ${count} entries into ${target.description}.`);
    } catch (error) {
      // The error goes on a line of its own, not after the progress counter.
      if (progress) process.stderr.write('\n');
      throw error;
    } finally {
      await target.close();
    }
  });

await program.parseAsync().catch((error: Error) => {
  console.error(`import: ${error.message}`);
  process.exitCode = 1;
});
