/** `npm run backfill [-- --env staging|production]`: docs/operating.md "Upgrading a store to the list index". */
import { Command } from 'commander';
import type { EnvironmentName } from '#infra/settings.ts';
import { backfillListIndex } from './list-index-backfill.ts';
import { environmentOption, openTarget } from './target.ts';

const program = new Command('backfill')
  .description(
    'Bring an inventory table written before the list index into its layout (index and list shards).',
  )
  .addOption(environmentOption())
  .action(async (options: { env?: EnvironmentName }) => {
    const target = await openTarget(options.env);
    try {
      const result = await backfillListIndex(target.raw, target.tables.inventory, {
        local: options.env === undefined,
        progress: (message) => process.stderr.write(`${message}\n`),
      });
      console.log(
        `Backfilled ${target.description}: index ${result.index}, list shard set on ${result.updated} entries.`,
      );
    } finally {
      await target.close();
    }
  });

await program.parseAsync().catch((error: Error) => {
  console.error(`backfill: ${error.message}`);
  process.exitCode = 1;
});
