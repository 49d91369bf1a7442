/**
 * Webhook endpoints through the API (docs/contract.md "History and events"): endpoints owned by an API key, at
 * most 20 per key (lib/webhooks/endpoint-owners.ts `maxEndpointsPerKey`), each create and delete one
 * TransactWriteItems of the endpoint's item (lib/webhooks/endpoint-store.ts) and its owner's
 * (lib/webhooks/endpoint-owners.ts); and the webhook tool's removal of any endpoint (docs/architecture.md "Webhook endpoints of API keys").
 * @module
 */
import { setTimeout } from 'node:timers/promises';
import {
  type DynamoDBClient,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { HttpError } from '../http/errors.ts';
import { type Endpoint, type EndpointView, newEndpoint } from './endpoint.ts';
import { addToOwnerOf, holdsUrl, ownedIds, removeFromOwnerOf } from './endpoint-owners.ts';
import {
  deleteOwnedOf,
  deleteUnowned,
  disabledReasonOf,
  disableForKey,
  endpointViews,
  ownerAndUrlOf,
  putOf,
  refreshOwned,
} from './endpoint-store.ts';
import type { EndpointEventType } from './event-access.ts';
import type { KeyRefusal } from './owner-access.ts';

/**
 * What a create did: `created` (201, the secret shown once), `existing` (the key's endpoint for that URL),
 * `limit_reached`, or `key_dead`: the URL's endpoint was disabled because no key of the caller's chain is live
 * (a revoked or expired key still accepted from the authorizer's cache may not re-enable it).
 */
export type CreateResult =
  | { outcome: 'created'; endpoint: Endpoint }
  | { outcome: 'existing'; endpoint: EndpointView }
  | { outcome: 'limit_reached' }
  | { outcome: 'key_dead' };

/** The table names a {@link keyEndpointStore} works on. */
export interface EndpointTables {
  endpoints: string;
  owners: string;
}

/** The endpoints of API keys. `owner` is always the first key id of the caller's rotation chain. */
export interface KeyEndpointStore {
  /**
   * The endpoint for `url` with `events`: a new one (new id and secret) unless `owner` already holds one for
   * `url`, which then takes `events` and, when disabled, is enabled again (the API's re-enable).
   * @throws HttpError 503 when other writes of the same owner keep cancelling the transaction.
   */
  create(owner: string, url: string, events: readonly EndpointEventType[], now: Date): Promise<CreateResult>;
  /** The endpoints `owner` holds, oldest first, never their secrets: strongly consistent reads. */
  list(owner: string): Promise<EndpointView[]>;
  /**
   * Removes `owner`'s endpoint `endpointId`. @returns false when there is none or another key holds it.
   * @throws HttpError 503 as {@link create}.
   */
  remove(owner: string, endpointId: string): Promise<boolean>;
}

/** Transactions tried per write: a `TransactionConflict` with another write of the same owner is retried. */
const attempts = 5;

/** True when `error` cancelled a transaction because another one held one of its items. */
function isConflict(error: unknown): boolean {
  return (
    error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason?.Code === 'TransactionConflict')
  );
}

/** The reason code of the transaction item `index` that cancelled `error`, if it was cancelled. */
function reasonOf(error: unknown, index: number): string | undefined {
  return error instanceof TransactionCanceledException ? error.CancellationReasons?.[index]?.Code : undefined;
}

/**
 * Runs `write` up to {@link attempts} times while it fails with a `TransactionConflict`, pausing a jittered
 * moment between tries. @throws HttpError 503 after the last conflict; any other error as thrown.
 */
async function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (attempt === attempts) {
        throw new HttpError(
          'service_unavailable',
          "too many changes of this key's webhook endpoints at once; retry",
        );
      }
      await setTimeout(10 + Math.random() * 40 * attempt);
    }
  }
}

/** The endpoint store of API keys over `client` (low-level, util-dynamodb marshalling) and `names`. */
export function keyEndpointStore(client: DynamoDBClient, names: EndpointTables): KeyEndpointStore {
  const list = async (owner: string): Promise<EndpointView[]> => {
    const views = await endpointViews(client, names.endpoints, await ownedIds(client, names.owners, owner));
    // An id whose item is gone is not shown (a tool's removal between the two reads).
    return views
      .filter((view) => view.ownerKeyId === owner)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.endpointId.localeCompare(b.endpointId));
  };

  /**
   * One TransactWriteItems: the owner's item takes the new id and the URL's hash (lib/webhooks/endpoint-owners.ts
   * `addToOwnerOf`), and the endpoint is put. Its `ClientRequestToken` is the SDK's own, the same on each of the
   * SDK's retries, so a retry of a transaction that committed and answered late succeeds without writing again,
   * whatever was written in between (DynamoDB, for 10 minutes). @returns the endpoint, `limit_reached`, or
   * `url_taken` when the owner holds the URL already.
   */
  const add = async (owner: string, url: string, events: readonly EndpointEventType[], now: Date) => {
    const endpoint = newEndpoint(url, events, now, owner);
    try {
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Update: addToOwnerOf(names.owners, owner, endpoint.endpointId, url) },
            { Put: putOf(names.endpoints, endpoint) },
          ],
        }),
      );
      return endpoint;
    } catch (error) {
      if (reasonOf(error, 0) !== 'ConditionalCheckFailed') throw error;
      const refused = (error as TransactionCanceledException).CancellationReasons?.[0]?.Item;
      return holdsUrl(refused, url) ? ('url_taken' as const) : ('limit_reached' as const);
    }
  };

  return {
    create: (owner, url, events, now) =>
      retryingConflicts(async (): Promise<CreateResult> => {
        for (let attempt = 1; ; attempt++) {
          const existing = (await list(owner)).find((endpoint) => endpoint.url === url);
          if (!existing) {
            const added = await add(owner, url, events, now);
            if (added === 'limit_reached') return { outcome: added };
            if (added !== 'url_taken') return { outcome: 'created', endpoint: added };
          } else if (existing.disabledReason === 'key_revoked' || existing.disabledReason === 'key_expired') {
            return { outcome: 'key_dead' };
          } else {
            const refreshed = await refreshOwned(client, names.endpoints, owner, existing, events);
            if (refreshed) return { outcome: 'existing', endpoint: refreshed };
          }
          // Another create of the URL committed, or its state moved on (or it was removed), since the read: read again.
          if (attempt === attempts)
            throw new HttpError('service_unavailable', 'the endpoint is changing; retry');
        }
      }),
    list,
    remove: (owner, endpointId) =>
      retryingConflicts(async () => {
        const endpoint = await ownerAndUrlOf(client, names.endpoints, endpointId);
        if (endpoint?.ownerKeyId !== owner) return false;
        try {
          await client.send(removal(names, owner, endpointId, endpoint.url));
          return true;
        } catch (error) {
          if (reasonOf(error, 0) === 'ConditionalCheckFailed') return false;
          throw error;
        }
      }),
  };
}

/**
 * The TransactWriteItems that removes `owner`'s endpoint `endpointId` at `url` (only if `owner` holds it) and
 * takes its id and its URL's hash out of the owner's item; its `ClientRequestToken` is the SDK's own.
 */
function removal(
  names: EndpointTables,
  owner: string,
  endpointId: string,
  url: string,
): TransactWriteItemsCommand {
  return new TransactWriteItemsCommand({
    TransactItems: [
      { Delete: deleteOwnedOf(names.endpoints, owner, endpointId) },
      { Update: removeFromOwnerOf(names.owners, owner, endpointId, url) },
    ],
  });
}

/**
 * The webhook tool's `remove`, the one removal of any endpoint: an API key's endpoint with its owner's item (so
 * it no longer counts to the key's 20), the tool's own with one conditional DeleteItem.
 * @returns false when there is no such endpoint.
 */
export async function removeEndpoint(
  client: DynamoDBClient,
  names: EndpointTables,
  endpointId: string,
): Promise<boolean> {
  const endpoint = await ownerAndUrlOf(client, names.endpoints, endpointId);
  if (!endpoint) return false;
  if (endpoint.ownerKeyId !== undefined) {
    return keyEndpointStore(client, names).remove(endpoint.ownerKeyId, endpointId);
  }
  return deleteUnowned(client, names.endpoints, endpointId);
}

/**
 * The key tool's `revoke` once no key of the chain `owner` is live: every endpoint `owner` holds, not yet
 * disabled, `disabled` at `now` with `reason` (lib/webhooks/endpoint-store.ts `disableForKey`).
 * @returns the ids of the endpoints now disabled with `reason`: by this call, or already by the fan-out, whose
 *   check of the keys may see the revocation first (docs/architecture.md "Webhook endpoints of API keys").
 */
export async function disableOwnedEndpoints(
  client: DynamoDBClient,
  names: EndpointTables,
  owner: string,
  reason: KeyRefusal,
  now: Date,
): Promise<string[]> {
  const ids = await ownedIds(client, names.owners, owner);
  const disabled = await Promise.all(
    ids.map(
      async (id) =>
        (await disableForKey(client, names.endpoints, id, owner, reason, now)) ||
        (await disabledReasonOf(client, names.endpoints, id)) === reason,
    ),
  );
  return ids.filter((_, index) => disabled[index]);
}
