/** The key tool, `npm run keys -- <command> [--env staging|production]`: docs/operating.md "API keys". */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { EnvironmentName } from '#infra/settings.ts';
import { createKey, deadChains, listKeys, revokeKeys, rotateKey, syncGatewayKeys } from '#lib/admin/keys.ts';
import { authorizerCacheTtlSeconds, isScope, type Scope, scopes } from '#lib/api.ts';
import type { Throttle } from '#lib/auth/authorize.ts';
import { keyStore } from '#lib/auth/key-store.ts';
import { disableOwnedEndpoints } from '#lib/webhooks/key-endpoints.ts';
import { environmentOption, type Target, withTarget } from './target.ts';

const keysOf = (target: Target) => keyStore(target.client, target.tables.apiKeys);
const daysMs = 86_400_000;

function positiveInteger(option: string) {
  return (value: string) => {
    const number = Number(value);
    if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(number)) {
      throw new InvalidArgumentError(`${option} takes a whole number >= 1`);
    }
    return number;
  };
}

/** `--scope` values: repeatable, each a scope or a comma-separated list of scopes. */
function collectScopes(value: string, previous: Scope[]): Scope[] {
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown scope ${unknown.join(', ')}: the scopes are ${scopes.join(', ')}`,
    );
  }
  return [...new Set([...previous, ...(names as Scope[])])];
}

/**
 * How long after it stops a key may still be accepted: API Gateway answers from the authorizer's cached result
 * for up to its TTL (lib/api.ts `authorizerCacheTtlSeconds`) without asking the keys table.
 */
function cacheLag(them: string, after = ''): string {
  return `API Gateway may keep accepting ${them} for up to ${authorizerCacheTtlSeconds} s${after} (authorizer cache)`;
}

function describeExpiry(expiresAt: Date | undefined): string {
  return expiresAt ? `valid until ${expiresAt.toISOString()}` : 'no expiry';
}

const program = new Command('keys').description(
  'Create, list, revoke and rotate API keys. Keys are stored only as SHA-256 digests.',
);

program
  .command('create')
  .description('create a key and print it once: store it safely, it cannot be shown again')
  .argument('<name>', 'who or what the key is for')
  .option(
    '--scope <scopes>',
    `what the key may do, repeatable or comma-separated: ${scopes.join(', ')} (default: all)`,
    collectScopes,
    [],
  )
  .option(
    '--rate <requests>',
    "the key's own limit in requests per second (default: the environment's)",
    positiveInteger('--rate'),
  )
  .option(
    '--burst <requests>',
    'the burst of that limit (default: twice the rate)',
    positiveInteger('--burst'),
  )
  .option(
    '--expires-in-days <days>',
    "the key stops working after this many days (default: the environment's)",
    positiveInteger('--expires-in-days'),
  )
  .addOption(new Option('--no-expiry', 'the key never expires').conflicts('expiresInDays'))
  .addOption(environmentOption())
  .action(
    async (
      name: string,
      options: {
        scope: Scope[];
        rate?: number;
        burst?: number;
        expiresInDays?: number;
        expiry: boolean;
        env?: EnvironmentName;
      },
    ) => {
      if (options.burst !== undefined && options.rate === undefined) {
        throw new InvalidArgumentError('--burst needs --rate');
      }
      const now = new Date();
      const throttle: Throttle | undefined =
        options.rate === undefined
          ? undefined
          : { rateLimit: options.rate, burstLimit: options.burst ?? 2 * options.rate };
      const { apiKey, expiresAt } = await withTarget(options.env, async (target) => {
        const days = options.expiresInDays ?? target.settings.apiKeys.expiresInDays;
        const expiresAt = options.expiry ? new Date(now.getTime() + days * daysMs) : undefined;
        const key = {
          name,
          now,
          ...(expiresAt ? { expiresAt } : {}),
          scopes: options.scope.length > 0 ? options.scope : scopes,
          ...(throttle ? { throttle } : {}),
        };
        return { apiKey: await createKey(keysOf(target), key, target.gatewayKeys()), expiresAt };
      });
      console.error(`Created key "${name}", ${describeExpiry(expiresAt)}. It is shown once:`);
      console.log(apiKey);
    },
  );

program
  .command('list')
  .description(
    'list keys: id, name, state, scopes, rate, creation, expiry and last use; never the keys themselves',
  )
  .option('--json', 'print a JSON array (one object per key) instead of a table')
  .addOption(environmentOption())
  .action(async (options: { json?: boolean; env?: EnvironmentName }) => {
    const summaries = await withTarget(options.env, (target) => listKeys(keysOf(target), new Date(), scopes));
    if (options.json) {
      console.log(JSON.stringify(summaries, null, 2));
      return;
    }
    console.table(
      summaries.map((summary) => ({
        id: summary.id,
        name: summary.name,
        state: summary.state,
        scopes: summary.scopes.join(' '),
        rate: summary.rateLimit === null ? 'default' : `${summary.rateLimit}/s burst ${summary.burstLimit}`,
        createdAt: summary.createdAt,
        expiresAt: summary.expiresAt ?? 'never',
        lastUsedAt: summary.lastUsedAt ?? 'never',
      })),
    );
  });

program
  .command('revoke')
  .description(
    'revoke a key by its id (keys list), or by its name when only one active key has it; when no key of its rotation chain is left active, its webhook endpoints are disabled (reason key_revoked)',
  )
  .argument('<id-or-name>', 'the id shown by keys list, or the name given at creation')
  .option('--all', 'revoke every active key with this name')
  .addOption(environmentOption())
  .action(async (idOrName: string, options: { all?: boolean; env?: EnvironmentName }) => {
    const now = new Date();
    const { ids, disabled } = await withTarget(options.env, async (target) => {
      const revoked = await revokeKeys(keysOf(target), idOrName, {
        now,
        all: options.all ?? false,
        gateway: target.gatewayKeys(),
      });
      // A chain left without a live key loses its webhook endpoints at once (docs/contract.md "History and events").
      const endpoints: string[] = [];
      for (const [owner, reason] of await deadChains(keysOf(target), revoked, now)) {
        const names = {
          endpoints: target.tables.webhookEndpoints,
          owners: target.tables.webhookEndpointOwners,
        };
        endpoints.push(...(await disableOwnedEndpoints(target.raw, names, owner, reason, now)));
      }
      return { ids: revoked, disabled: endpoints };
    });
    console.log(
      `Revoked ${ids.length} key(s): ${ids.join(', ')}; ${cacheLag(ids.length === 1 ? 'it' : 'them')}.`,
    );
    if (disabled.length > 0)
      console.log(
        `Disabled ${disabled.length} webhook endpoint(s) of the revoked key(s): ${disabled.join(', ')}.`,
      );
  });

program
  .command('rotate')
  .description(
    'issue a new key with the same name, scopes and rate; the old one keeps working for a grace period',
  )
  .argument('<id>', 'the id shown by keys list')
  .addOption(environmentOption())
  .action(async (id: string, options: { env?: EnvironmentName }) => {
    const now = new Date();
    const rotation = await withTarget(options.env, (target) => {
      const { expiresInDays, rotationGraceHours } = target.settings.apiKeys;
      return rotateKey(keysOf(target), id, {
        now,
        expiresAt: new Date(now.getTime() + expiresInDays * daysMs),
        graceEnd: new Date(now.getTime() + rotationGraceHours * 3_600_000),
        allScopes: scopes,
        gateway: target.gatewayKeys(),
      });
    });
    console.error(
      `Rotated key ${id}: it keeps working until ${rotation.oldExpiresAt.toISOString()}; ${cacheLag('it', ' more')}. The new key ${rotation.newId} is shown once:`,
    );
    console.log(rotation.apiKey);
  });

program
  .command('sync')
  .description(
    'give every active key of a deployed environment its API Gateway API key (keys made before per-key throttling)',
  )
  .addOption(environmentOption('the deployed environment').makeOptionMandatory())
  .action(async (options: { env: EnvironmentName }) => {
    const ids = await withTarget(options.env, (target) => {
      const gateway = target.gatewayKeys();
      if (!gateway) throw new Error('sync works on a deployed environment only');
      return syncGatewayKeys(keysOf(target), gateway, new Date());
    });
    console.log(
      ids.length === 0
        ? 'Every active key has its API key.'
        : `Added the API keys of ${ids.length} key(s): ${ids.join(', ')}.`,
    );
  });

await program.parseAsync().catch((error: Error) => {
  console.error(`keys: ${error.message}`);
  process.exitCode = 1;
});
