/**
 * The key tool: `npm run keys -- <create|list|revoke> [--env staging|production]` (docs/contract.md "Operator
 * tooling"). Without `--env` it works on the local store (see target.ts). `--help` describes every command.
 */
import { Command, Option } from 'commander';
import { keyStore } from '#lib/auth/key-store.ts';
import { createKey, listKeys, revokeKeys } from './key-commands.ts';
import { type Environment, openTarget } from './target.ts';

const envOption = new Option(
  '--env <environment>',
  'a deployed environment instead of the local store',
).choices(['staging', 'production']);

/** Runs `work` against the key store of the chosen target, closing it afterwards. */
async function withKeys<T>(
  env: Environment | undefined,
  work: (keys: ReturnType<typeof keyStore>) => Promise<T>,
) {
  const target = await openTarget(env);
  try {
    return await work(keyStore(target.client, target.tables.apiKeys));
  } finally {
    await target.close();
  }
}

const program = new Command('keys').description(
  'Create, list and revoke API keys. Keys are stored only as SHA-256 digests.',
);

program
  .command('create')
  .description('create a key and print it once: store it safely, it cannot be shown again')
  .argument('<name>', 'who or what the key is for')
  .option('--expires-in-days <days>', 'the key stops working after this many days', (v) => {
    const days = Number(v);
    if (!Number.isInteger(days) || days < 1)
      throw new Error('--expires-in-days takes a whole number of days >= 1');
    return days;
  })
  .addOption(envOption)
  .action(async (name: string, options: { expiresInDays?: number; env?: Environment }) => {
    const now = new Date();
    const expiresAt = options.expiresInDays
      ? new Date(now.getTime() + options.expiresInDays * 86_400_000)
      : undefined;
    const apiKey = await withKeys(options.env, (keys) => createKey(keys, name, now, expiresAt));
    console.error(
      `Created key "${name}"${expiresAt ? `, valid until ${expiresAt.toISOString()}` : ''}. It is shown once:`,
    );
    console.log(apiKey);
  });

program
  .command('list')
  .description('list keys: name, id (digest prefix), creation, expiry and state; never the keys themselves')
  .addOption(envOption)
  .action(async (options: { env?: Environment }) => {
    const summaries = await withKeys(options.env, (keys) => listKeys(keys, new Date()));
    console.table(summaries);
  });

program
  .command('revoke')
  .description('revoke every active key with this name')
  .argument('<name>', 'the name given at creation')
  .addOption(envOption)
  .action(async (name: string, options: { env?: Environment }) => {
    const count = await withKeys(options.env, (keys) => revokeKeys(keys, name, new Date()));
    if (count === 0) throw new Error(`no active key named "${name}"`);
    console.log(`Revoked ${count} key(s) named "${name}".`);
  });

await program.parseAsync().catch((error: Error) => {
  console.error(`keys: ${error.message}`);
  process.exitCode = 1;
});
