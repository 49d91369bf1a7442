/** The webhook tool, `npm run webhooks -- <command> [--env staging|production]`: docs/operating.md "Webhooks". */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { EnvironmentName } from '#infra/settings.ts';
import { pageLimits, parseLimit } from '#lib/http/page-limit.ts';
import {
  attemptPage,
  attemptRetentionDays,
  retryingAttempts,
  type WebhookAttempt,
} from '#lib/webhooks/attempt-log.ts';
import { deliveryQueue } from '#lib/webhooks/delivery-queue.ts';
import { disableEndpoint, enableEndpoint } from '#lib/webhooks/endpoint-health.ts';
import { endpointStore } from '#lib/webhooks/endpoint-store.ts';
import { type EndpointEventType, endpointEventTypes } from '#lib/webhooks/event-access.ts';
import { failureStore, type WebhookFailure } from '#lib/webhooks/failures.ts';
import { removeEndpoint } from '#lib/webhooks/key-endpoints.ts';
import { checkWebhookUrl, type UrlPolicy, urlPolicyFrom } from '#lib/webhooks/url-guard.ts';
import { failureRecords, lostBatches } from './lost-changes.ts';
import { environmentOption, type Target, withTarget } from './target.ts';

const endpointsOf = (target: Target) => endpointStore(target.raw, target.tables.webhookEndpoints);
const failuresOf = (target: Target) => failureStore(target.raw, target.tables.webhookFailures);

/** The SSRF policy URLs are checked with: deployed `public-https`; locally `local` (WEBHOOK_URL_POLICY overrides). */
function policyOf(env: EnvironmentName | undefined): UrlPolicy {
  return env ? 'public-https' : urlPolicyFrom(process.env.WEBHOOK_URL_POLICY || 'local');
}

/** `--limit` values: listWebhookAttempts' `limit` rule (lib/orders/cursor.ts). */
function limitOption(value: string): number {
  try {
    return parseLimit(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** `--events` values: a comma-separated list of event types. */
function parseEvents(value: string): EndpointEventType[] {
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(endpointEventTypes as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new InvalidArgumentError(
      `unknown event type ${unknown.join(', ')}: the types are ${endpointEventTypes.join(', ')}`,
    );
  }
  return [...new Set(names as EndpointEventType[])];
}

const program = new Command('webhooks').description(
  'Manage webhook endpoints (Standard Webhooks) and the deliveries that failed for good.',
);

program
  .command('add')
  .description('subscribe a URL to events and print its signing secret once: store it safely')
  .argument('<url>', 'where to POST the events: https (locally also http://127.0.0.1 or http://localhost)')
  .addOption(
    new Option('--events <types>', `comma-separated event types: ${endpointEventTypes.join(', ')}`)
      .argParser(parseEvents)
      .default([...endpointEventTypes], 'all'),
  )
  .addOption(environmentOption())
  .action(async (url: string, options: { events: EndpointEventType[]; env?: EnvironmentName }) => {
    await checkWebhookUrl(url, policyOf(options.env));
    const endpoint = await withTarget(options.env, (target) =>
      endpointsOf(target).add(url, options.events, new Date()),
    );
    console.error(
      `Added endpoint ${endpoint.endpointId} to ${endpoint.events.join(', ')} at ${url}. Its signing secret is shown once:`,
    );
    console.log(endpoint.secret);
  });

/** Prints `rows` as a JSON array with `json`, else `none` when there are none, else a table of `cells(row)`. */
function printRows<T>(rows: T[], json: boolean | undefined, none: string, cells: (row: T) => object): void {
  if (json) console.log(JSON.stringify(rows, null, 2));
  else if (rows.length === 0) console.log(none);
  else console.table(rows.map(cells));
}

program
  .command('list')
  .description(
    "list endpoints: id, url, events, creation, state (enabled, isolated: in the slow lane, disabled), since when and why disabled (failing: the breaker; operator: webhooks disable; key_revoked, key_expired, scope_missing: its API key no longer reads its events) and owner (for an API key's endpoint, the first key id of its rotation chain; - for the tool's); never their secrets",
  )
  .option('--json', 'print a JSON array (one object per endpoint) instead of a table')
  .addOption(environmentOption())
  .action(async (options: { json?: boolean; env?: EnvironmentName }) => {
    const endpoints = await withTarget(options.env, (target) => endpointsOf(target).list());
    const rows = endpoints
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.endpointId.localeCompare(b.endpointId))
      .map(({ endpointId, url, events, createdAt, state, disabledAt, disabledReason, ownerKeyId }) => ({
        id: endpointId,
        url,
        events,
        createdAt,
        state,
        disabledAt: disabledAt ?? null,
        disabledReason: disabledReason ?? null,
        owner: ownerKeyId ?? null,
      }));
    printRows(rows, options.json, 'No endpoints.', (row) => ({
      ...row,
      events: row.events.join(' '),
      disabledAt: row.disabledAt ?? '-',
      disabledReason: row.disabledReason ?? '-',
      owner: row.owner ?? '-',
    }));
  });

/**
 * Adds the command `name` that sets one endpoint's state with `change` (false when there is no such
 * endpoint: the command exits 1) and then prints `done(id)`.
 */
function stateCommand(
  name: string,
  description: string,
  change: (target: Target, id: string) => Promise<boolean>,
  done: (id: string) => string,
): void {
  program
    .command(name)
    .description(description)
    .argument('<id>', 'the endpoint id (as webhooks list shows it)')
    .addOption(environmentOption())
    .action(async (id: string, options: { env?: EnvironmentName }) => {
      if (!(await withTarget(options.env, (target) => change(target, id))))
        throw new Error(`no endpoint ${id}`);
      console.log(done(id));
    });
}

stateCommand(
  'enable',
  'enable an endpoint the breaker disabled (every attempt failed for 5 days); then `redrive` sends its kept deliveries',
  (target, id) => enableEndpoint(target.raw, target.tables.webhookEndpoints, id),
  (id) => `Enabled endpoint ${id}: redrive its failed deliveries with webhooks redrive ${id}.`,
);

stateCommand(
  'disable',
  "disable an endpoint (an API key's endpoint too): no attempt until `enable`, its deliveries kept as failures",
  (target, id) => disableEndpoint(target.raw, target.tables.webhookEndpoints, id, new Date()),
  (id) => `Disabled endpoint ${id}: enable it again with webhooks enable ${id}.`,
);

program
  .command('remove')
  .description(
    "remove an endpoint (an API key's endpoint too, which then no longer counts to its 20): no event is delivered to it any more",
  )
  .argument('<id>', 'the id shown by webhooks list')
  .addOption(environmentOption())
  .action(async (id: string, options: { env?: EnvironmentName }) => {
    const removed = await withTarget(options.env, (target) =>
      removeEndpoint(
        target.raw,
        {
          endpoints: target.tables.webhookEndpoints,
          // Looked up only for an API key's endpoint: a stack deployed before endpoints still serves `remove`.
          get owners() {
            return target.tables.webhookEndpointOwners;
          },
        },
        id,
      ),
    );
    if (!removed) throw new Error(`no endpoint ${id}`);
    console.log(`Removed endpoint ${id}.`);
  });

/**
 * A row of `failures`: a delivery still being retried (its last attempt, the time of its next: `failedAt` null)
 * or one whose retries are spent, kept until `redrive` (`nextAttemptAt` null).
 */
interface FailureRow {
  endpoint: string;
  eventId: string;
  type: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string;
  nextAttemptAt: string | null;
  failedAt: string | null;
}

/** The row of a delivery kept as a failure. */
function keptRow(failure: WebhookFailure): FailureRow {
  return {
    endpoint: failure.endpointId,
    eventId: failure.eventId,
    type: failure.type,
    attempts: failure.attempts,
    lastStatus: failure.lastStatus ?? null,
    lastError: failure.lastError,
    nextAttemptAt: null,
    failedAt: failure.failedAt,
  };
}

/** The row of a delivery of `endpoint` still being retried, from its last (failed) attempt. */
function retryingRow(endpoint: string, attempt: WebhookAttempt): FailureRow {
  return {
    endpoint,
    eventId: attempt.eventId,
    type: attempt.eventType,
    attempts: attempt.attempt,
    lastStatus: attempt.responseStatus,
    // A failed attempt without a short reason is one the endpoint answered: its status, as a kept failure says it.
    lastError: attempt.error ?? `HTTP ${attempt.responseStatus}`,
    nextAttemptAt: attempt.nextAttemptAt,
    failedAt: null,
  };
}

program
  .command('failures')
  .description(
    'list the deliveries that failed: those still being retried, with the time of their next attempt, then those that failed on every attempt (kept for redrive): endpoint, event, attempts, last status and error',
  )
  .option('--json', 'print a JSON array (one object per failure) instead of a table')
  .addOption(environmentOption())
  .action(async (options: { json?: boolean; env?: EnvironmentName }) => {
    const rows = await withTarget(options.env, async (target) => {
      const kept = await failuresOf(target).list();
      const keptIds = new Set(kept.map((failure) => `${failure.endpointId} ${failure.eventId}`));
      const endpoints = (await endpointsOf(target).list()).sort((a, b) =>
        a.endpointId.localeCompare(b.endpointId),
      );
      const now = new Date();
      const retrying: FailureRow[] = [];
      for (const { endpointId } of endpoints) {
        for (const attempt of await retryingAttempts(
          target.raw,
          target.tables.webhookAttempts,
          endpointId,
          now,
        )) {
          // Kept already (its endpoint was disabled before the next attempt): shown once, as kept.
          if (!keptIds.has(`${endpointId} ${attempt.eventId}`))
            retrying.push(retryingRow(endpointId, attempt));
        }
      }
      return [...retrying, ...kept.map(keptRow)];
    });
    printRows(rows, options.json, 'No failed deliveries.', (row) => ({
      ...row,
      lastStatus: row.lastStatus ?? '-',
      nextAttemptAt: row.nextAttemptAt ?? '-',
      failedAt: row.failedAt ?? '-',
    }));
  });

program
  .command('attempts')
  .description(
    `list an endpoint's delivery attempts of the last ${attemptRetentionDays} days, newest first (as listWebhookAttempts shows them): attempt, event, time, duration, status, error, outcome and when the next is due`,
  )
  .argument('<id>', 'the endpoint id (as webhooks list shows it)')
  .addOption(
    new Option('--limit <n>', `the newest n attempts, 1 to ${pageLimits.max}`)
      .argParser(limitOption)
      .default(pageLimits.default),
  )
  .option('--json', 'print a JSON array (one object per attempt, with its id) instead of a table')
  .addOption(environmentOption())
  .action(async (id: string, options: { limit: number; json?: boolean; env?: EnvironmentName }) => {
    const attempts = await withTarget(options.env, async (target) => {
      const page = await attemptPage(target.raw, target.tables.webhookAttempts, id, {
        limit: options.limit,
        now: new Date(),
      });
      // No attempt and no such endpoint: a mistyped id, not a quiet endpoint.
      if (page.items.length === 0 && !(await endpointsOf(target).get(id)))
        throw new Error(`no endpoint ${id}`);
      return page.items;
    });
    printRows(
      attempts,
      options.json,
      `No attempts of ${id} in the last ${attemptRetentionDays} days.`,
      (attempt) => ({
        attempt: attempt.attempt,
        eventId: attempt.eventId,
        eventType: attempt.eventType,
        attemptedAt: attempt.attemptedAt,
        durationMs: attempt.durationMs,
        responseStatus: attempt.responseStatus ?? '-',
        error: attempt.error ?? '-',
        outcome: attempt.outcome,
        nextAttemptAt: attempt.nextAttemptAt ?? '-',
      }),
    );
  });

program
  .command('redrive')
  .description("send an endpoint's failed deliveries to the delivery queue again, each with a new schedule")
  .argument('<id>', 'the endpoint id (as webhooks failures shows it)')
  .addOption(environmentOption())
  .action(async (id: string, options: { env?: EnvironmentName }) => {
    const { sent, total } = await withTarget(options.env, async (target) => {
      const endpoint = await endpointsOf(target).get(id);
      if (!endpoint) {
        throw new Error(`no endpoint ${id}: its deliveries could not be delivered`);
      }
      if (endpoint.state === 'disabled') {
        throw new Error(`endpoint ${id} is disabled: enable it first (webhooks enable ${id})`);
      }
      const failures = failuresOf(target);
      const pending = await failures.list(id);
      if (pending.length === 0) return { sent: 0, total: 0 };
      const { sqs, url } = await target.deliveryQueue();
      const queue = deliveryQueue(sqs, url);
      let sent = 0;
      for (const failure of pending) {
        const { endpointId, eventId, type, timestamp, data } = failure;
        try {
          await queue.send([{ endpointId, eventId, type, timestamp, data }]);
          // Deleted only once the queue holds it again: a stop in between sends it twice, never loses it.
          await failures.remove(endpointId, eventId);
        } catch (error) {
          throw new Error(
            `stopped after redriving ${sent} of ${pending.length}: ${(error as Error).message}`,
          );
        }
        sent++;
      }
      return { sent, total: pending.length };
    });
    console.log(
      total === 0
        ? `No failed deliveries of ${id}.`
        : `Redrove ${sent} failed deliveries of ${id} to the delivery queue.`,
    );
  });

program
  .command('lost')
  .description(
    "list the change records lost after the stream's retries: stream range, times, and the pets whose history shows the break",
  )
  .option('--json', 'print a JSON array (one object per lost batch) instead of lines')
  .addOption(environmentOption())
  .action(async (options: { json?: boolean; env?: EnvironmentName }) => {
    const lost = await withTarget(options.env, async (target) => {
      const { sqs, url } = await target.changeRecordsFailureQueue();
      return lostBatches(
        await failureRecords(sqs, url),
        { client: target.client, tableName: target.tables.inventoryHistory },
        target.tables.inventory,
      );
    });
    if (options.json) {
      console.log(JSON.stringify(lost, null, 2));
      return;
    }
    if (lost.length === 0) {
      console.log('No lost change records.');
      return;
    }
    for (const batch of lost) {
      const pets = batch.pets.map(({ petId, afterSequence }) => `${petId} (after sequence ${afterSequence})`);
      console.log(
        `${batch.table} stream, records ${batch.startSequenceNumber}..${batch.endSequenceNumber} (${batch.batchSize}), written ${batch.firstRecordAt}..${batch.lastRecordAt}, given up ${batch.discardedAt} (${batch.condition}); pets with the break: ${pets.join(', ') || 'none recorded yet'}`,
      );
    }
  });

await program.parseAsync().catch((error: Error) => {
  console.error(`webhooks: ${error.message}`);
  process.exitCode = 1;
});
