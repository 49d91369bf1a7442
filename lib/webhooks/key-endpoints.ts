/**
 * Webhook endpoints through the API (docs/contract.md "History and events"): endpoints owned by an API key,
 * at most {@link maxEndpointsPerKey} per key, each create and delete one TransactWriteItems with the owner's item
 * in the endpoint owners table (docs/architecture.md "Events and webhooks": webhook endpoints).
 * @module
 */
import { createHash } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import {
  type AttributeValue,
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { HttpError } from '../http/errors.ts';
import { disableForKey } from './endpoint-health.ts';
import { deleteEndpoint, type Endpoint, fromStored, newEndpoint } from './endpoint-store.ts';
import type { EndpointEventType } from './event-access.ts';
import type { KeyRefusal } from './owner-access.ts';
import { endpointKey, itemAbsent, itemExists, storedEndpointId, toStoredNames } from './stored-names.ts';

/** Most webhook endpoints one API key (one rotation chain) holds (docs/contract.md "History and events"). */
export const maxEndpointsPerKey = 20;

/** An endpoint as the API shows it after its creation: an endpoint without its secret. */
export type EndpointView = Omit<Endpoint, 'secret'>;

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

/** The table names an {@link keyEndpointStore} works on. */
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

/** The attributes an endpoint is read with: every one but the secret. */
const viewProjection = {
  ProjectionExpression:
    '#id, #url, #events, #state, createdAt, failingSince, disabledAt, disabledReason, ownerKeyId',
  ExpressionAttributeNames: {
    '#id': storedEndpointId,
    '#url': 'url',
    '#events': 'events',
    '#state': 'state',
  },
};

/** A stored item read with {@link viewProjection} as an {@link EndpointView}. */
function viewOf(item: Record<string, AttributeValue>): EndpointView {
  const { secret: _secret, ...view } = fromStored(unmarshall(item));
  return view;
}

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

/** The ids of the endpoints `owner` holds, as its item in the owners table lists them: one consistent GetItem. */
async function ownedIds(client: DynamoDBClient, names: EndpointTables, owner: string): Promise<string[]> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: names.owners,
      Key: marshall({ ownerKeyId: owner }),
      ConsistentRead: true,
      ProjectionExpression: 'endpointIds',
    }),
  );
  const ids = Item && (unmarshall(Item).endpointIds as Set<string> | undefined);
  return ids ? [...ids] : [];
}

/** The endpoint store over `client` (low-level, util-dynamodb marshalling) and `names`. */
export function keyEndpointStore(client: DynamoDBClient, names: EndpointTables): KeyEndpointStore {
  const list = async (owner: string): Promise<EndpointView[]> => {
    let keys = (await ownedIds(client, names, owner)).map((endpointId) => marshall(endpointKey(endpointId)));
    const views: EndpointView[] = [];
    // At most 20 keys: one BatchGetItem; what DynamoDB leaves unprocessed is asked again.
    for (let round = 1; keys.length > 0; round++) {
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetItemCommand({
          RequestItems: { [names.endpoints]: { Keys: keys, ConsistentRead: true, ...viewProjection } },
        }),
      );
      for (const item of Responses?.[names.endpoints] ?? []) views.push(viewOf(item));
      keys = UnprocessedKeys?.[names.endpoints]?.Keys ?? [];
      if (keys.length > 0) {
        if (round === attempts) throw new HttpError('service_unavailable', 'the store is busy; retry');
        await setTimeout(20 * round);
      }
    }
    // An id whose item is gone is not shown (a tool's removal between the two reads).
    return views
      .filter((view) => view.ownerKeyId === owner)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.endpointId.localeCompare(b.endpointId));
  };

  /**
   * Gives `owner`'s endpoint `existing` the `events`, enabled again when disabled (not for a dead key chain).
   * @returns it, or undefined when it moved on.
   */
  const refresh = async (owner: string, existing: EndpointView, events: readonly EndpointEventType[]) => {
    const disabled = existing.state === 'disabled';
    try {
      const { Attributes } = await client.send(
        new UpdateItemCommand({
          TableName: names.endpoints,
          Key: marshall(endpointKey(existing.endpointId)),
          UpdateExpression: disabled
            ? 'SET #events = :e, #state = :enabled REMOVE failingSince, disabledAt, disabledReason'
            : 'SET #events = :e',
          // Never re-enabled when its chain has no live key any more (disabled since the read).
          ConditionExpression: disabled
            ? 'ownerKeyId = :o AND #state = :disabled AND NOT (disabledReason IN (:revoked, :expired))'
            : 'ownerKeyId = :o AND (attribute_not_exists(#state) OR #state <> :disabled)',
          ExpressionAttributeNames: { '#events': 'events', '#state': 'state' },
          ExpressionAttributeValues: marshall({
            ':e': [...events],
            ':o': owner,
            ':disabled': 'disabled',
            ...(disabled && { ':enabled': 'enabled', ':revoked': 'key_revoked', ':expired': 'key_expired' }),
          }),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes && viewOf(Attributes);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  };

  /**
   * One TransactWriteItems: the owner's item takes the new id (while it holds fewer than the most) and the URL's
   * hash (while it holds none: one endpoint per key and URL under any concurrency), and the endpoint is put. Its
   * `ClientRequestToken` is the SDK's own, the same on each of the SDK's retries, so a retry of a transaction that
   * committed and answered late succeeds without writing again, whatever was written in between (DynamoDB, for
   * 10 minutes). @returns the endpoint, `limit_reached`, or `url_taken` when the owner holds the URL already.
   */
  const add = async (owner: string, url: string, events: readonly EndpointEventType[], now: Date) => {
    const endpoint = newEndpoint(url, events, now, owner);
    try {
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Update: {
                TableName: names.owners,
                Key: marshall({ ownerKeyId: owner }),
                UpdateExpression: 'ADD endpointIds :id, urlHashes :h',
                ConditionExpression:
                  '(attribute_not_exists(endpointIds) OR size(endpointIds) < :max) AND NOT contains(urlHashes, :u)',
                ExpressionAttributeValues: {
                  ':id': { SS: [endpoint.endpointId] },
                  ':h': { SS: [urlHash(url)] },
                  ':u': { S: urlHash(url) },
                  ':max': { N: String(maxEndpointsPerKey) },
                },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            {
              Put: {
                TableName: names.endpoints,
                Item: marshall(toStoredNames(endpoint)),
                ConditionExpression: itemAbsent,
              },
            },
          ],
        }),
      );
      return endpoint;
    } catch (error) {
      if (reasonOf(error, 0) !== 'ConditionalCheckFailed') throw error;
      const held = (error as TransactionCanceledException).CancellationReasons?.[0]?.Item?.urlHashes?.SS;
      return held?.includes(urlHash(url)) ? ('url_taken' as const) : ('limit_reached' as const);
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
            const refreshed = await refresh(owner, existing, events);
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
        const { Item } = await client.send(
          new GetItemCommand({
            TableName: names.endpoints,
            Key: marshall(endpointKey(endpointId)),
            ConsistentRead: true,
            ProjectionExpression: '#url, ownerKeyId',
            ExpressionAttributeNames: { '#url': 'url' },
          }),
        );
        const endpoint = Item && unmarshall(Item);
        if (endpoint?.ownerKeyId !== owner) return false;
        try {
          await client.send(removal(names, owner, endpointId, String(endpoint.url)));
          return true;
        } catch (error) {
          if (reasonOf(error, 0) === 'ConditionalCheckFailed') return false;
          throw error;
        }
      }),
  };
}

/** The hash of an endpoint's URL its owner's item holds: base64url of its SHA-256 (43 characters). */
function urlHash(url: string): string {
  return createHash('sha256').update(url, 'utf8').digest('base64url');
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
      {
        Delete: {
          TableName: names.endpoints,
          Key: marshall(endpointKey(endpointId)),
          ConditionExpression: 'ownerKeyId = :o',
          ExpressionAttributeValues: marshall({ ':o': owner }),
        },
      },
      {
        Update: {
          TableName: names.owners,
          Key: marshall({ ownerKeyId: owner }),
          UpdateExpression: 'DELETE endpointIds :id, urlHashes :h',
          ExpressionAttributeValues: { ':id': { SS: [endpointId] }, ':h': { SS: [urlHash(url)] } },
        },
      },
    ],
  });
}

/**
 * The webhook tool's `remove`: any endpoint, an API key's endpoint with its owner's set (so it no longer
 * counts to the key's 20), the tool's own with one conditional DeleteItem.
 * @returns false when there is no such endpoint.
 */
export async function removeEndpoint(
  client: DynamoDBClient,
  names: EndpointTables,
  endpointId: string,
): Promise<boolean> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: names.endpoints,
      Key: marshall(endpointKey(endpointId)),
      ConsistentRead: true,
      ProjectionExpression: 'ownerKeyId',
    }),
  );
  if (!Item) return false;
  const owner = unmarshall(Item).ownerKeyId as string | undefined;
  if (owner !== undefined) return keyEndpointStore(client, names).remove(owner, endpointId);
  return deleteEndpoint(
    client,
    names.endpoints,
    endpointId,
    `${itemExists} AND attribute_not_exists(ownerKeyId)`,
  );
}

/**
 * The key tool's `revoke` once no key of the chain `owner` is live: every endpoint `owner` holds, not yet
 * disabled, `disabled` at `now` with `reason` (lib/webhooks/endpoint-health.ts `disableForKey`).
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
  const ids = await ownedIds(client, names, owner);
  const disabled = await Promise.all(
    ids.map(
      async (id) =>
        (await disableForKey(client, names.endpoints, id, owner, reason, now)) ||
        (await disabledReasonOf(client, names.endpoints, id)) === reason,
    ),
  );
  return ids.filter((_, index) => disabled[index]);
}

/** The `disabledReason` of the endpoint `endpointId` (strongly consistent), if any. */
async function disabledReasonOf(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
): Promise<string | undefined> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: marshall(endpointKey(endpointId)),
      ConsistentRead: true,
      ProjectionExpression: 'disabledReason',
    }),
  );
  return Item && (unmarshall(Item).disabledReason as string | undefined);
}
