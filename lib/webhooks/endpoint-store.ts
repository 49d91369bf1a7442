/**
 * The webhook endpoints table, one item per endpoint (docs/contract.md "History and events"; docs/architecture.md
 * "Data layout"): every read and write of it. Written by the webhook tool and the endpoint operations, scanned by
 * the fan-out, read and moved between states by the delivery (the slow lane and the breaker). Each function is
 * one request, so that a function's bundle carries only the commands it sends (docs/architecture.md "Bundles");
 * the low-level client with util-dynamodb's marshalling, not the document client, which the delivery function's
 * bundle has no room for. A conditional write whose condition fails (the endpoint removed, or already moved on)
 * changes nothing. `state` and `url` are DynamoDB reserved words: expressions name them with placeholders.
 * @module
 */
import { setTimeout } from 'node:timers/promises';
import {
  type AttributeValue,
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateScan,
  type TransactWriteItem,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { conditional } from '../clients/dynamodb-client.ts';
import { HttpError } from '../http/errors.ts';
import {
  type DisabledReason,
  type Endpoint,
  type EndpointRoute,
  type EndpointState,
  type EndpointView,
  newEndpoint,
} from './endpoint.ts';
import type { EndpointEventType } from './event-access.ts';
import type { KeyRefusal } from './owner-access.ts';
import {
  endpointKey,
  itemAbsent,
  itemExists,
  storedEndpointId,
  storedEndpointIdOf,
  toStoredNames,
} from './stored-names.ts';

/** A stored state, `enabled` when absent (items stored before states existed). */
function stateOf(item: Record<string, unknown>): EndpointState {
  return (item.state as EndpointState | undefined) ?? 'enabled';
}

/** A stored item's event types (a list of strings) as an array. */
function eventsOf(item: Record<string, unknown>): EndpointEventType[] {
  return [...((item.events as Iterable<EndpointEventType> | undefined) ?? [])];
}

/** A stored item as an endpoint. */
function fromStored(item: Record<string, unknown>): Endpoint {
  return {
    endpointId: storedEndpointIdOf(item),
    url: String(item.url),
    events: eventsOf(item),
    secret: String(item.secret),
    createdAt: String(item.createdAt),
    state: stateOf(item),
    ...(item.failingSince !== undefined && { failingSince: String(item.failingSince) }),
    ...(item.disabledAt !== undefined && { disabledAt: String(item.disabledAt) }),
    ...(item.disabledReason !== undefined && { disabledReason: item.disabledReason as DisabledReason }),
    ...(item.ownerKeyId !== undefined && { ownerKeyId: String(item.ownerKeyId) }),
    ...(item.previousSecret !== undefined && { previousSecret: String(item.previousSecret) }),
    ...(item.previousSecretExpiresAt !== undefined && {
      previousSecretExpiresAt: String(item.previousSecretExpiresAt),
    }),
  };
}

/** The table and key of the endpoint `endpointId` in `tableName`: the start of a command on its item. */
function endpointItem(tableName: string, endpointId: string) {
  return { TableName: tableName, Key: marshall(endpointKey(endpointId)) };
}

/**
 * The fan-out's read: a Scan of all pages projecting the id, events, state, owner and creation time, so that no
 * signing secret leaves the table for the fan-out (docs/architecture.md "Events and webhooks").
 */
export function endpointRoutes(
  client: DynamoDBClient,
  tableName: string,
): { list(): Promise<EndpointRoute[]> } {
  return {
    async list() {
      const routes: EndpointRoute[] = [];
      const pages = paginateScan(
        { client },
        {
          TableName: tableName,
          ProjectionExpression: '#id, #events, #state, ownerKeyId, createdAt',
          ExpressionAttributeNames: { '#id': storedEndpointId, '#events': 'events', '#state': 'state' },
        },
      );
      for await (const page of pages) {
        for (const stored of page.Items ?? []) {
          const item = unmarshall(stored);
          routes.push({
            endpointId: storedEndpointIdOf(item),
            events: eventsOf(item),
            state: stateOf(item),
            ...(item.ownerKeyId !== undefined && { ownerKeyId: String(item.ownerKeyId) }),
            ...(item.createdAt !== undefined && { createdAt: String(item.createdAt) }),
          });
        }
      }
      return routes;
    },
  };
}

/** What the delivery reads of the endpoints table. */
export interface EndpointReader {
  /** The endpoint `endpointId`, secret included, or undefined: one strongly consistent GetItem. */
  get(endpointId: string): Promise<Endpoint | undefined>;
}

/** The endpoints table's reader over `client` and `tableName` (the delivery function, the webhook tool). */
export function endpointReader(client: DynamoDBClient, tableName: string): EndpointReader {
  return {
    async get(endpointId) {
      const { Item } = await client.send(
        new GetItemCommand({ ...endpointItem(tableName, endpointId), ConsistentRead: true }),
      );
      return Item && fromStored(unmarshall(Item));
    },
  };
}

/** Every endpoint, secrets included: a Scan of all pages (the webhook tool, never an API request). */
export async function listEndpoints(client: DynamoDBClient, tableName: string): Promise<Endpoint[]> {
  const endpoints: Endpoint[] = [];
  for await (const page of paginateScan({ client }, { TableName: tableName })) {
    for (const item of page.Items ?? []) endpoints.push(fromStored(unmarshall(item)));
  }
  return endpoints;
}

/**
 * The webhook tool's `add`: a new endpoint (no owner) to `events` at `url` (already checked by the SSRF guard),
 * with a new id and secret: one PutItem, only if no item has its id. @returns it, secret included.
 */
export async function addEndpoint(
  client: DynamoDBClient,
  tableName: string,
  url: string,
  events: readonly EndpointEventType[],
  now: Date,
): Promise<Endpoint> {
  const endpoint = newEndpoint(url, events, now);
  await client.send(new PutItemCommand(putOf(tableName, endpoint)));
  return endpoint;
}

/** The Put of the new `endpoint` (only if no item has its id): alone, or in an owner's transaction. */
export function putOf(tableName: string, endpoint: Endpoint) {
  return {
    TableName: tableName,
    Item: marshall(toStoredNames(endpoint)),
    ConditionExpression: itemAbsent,
  } satisfies TransactWriteItem['Put'];
}

/**
 * The Delete of `owner`'s endpoint `endpointId`, only if `owner` holds it: in the transaction that takes it out
 * of its owner's item too (lib/webhooks/key-endpoints.ts).
 */
export function deleteOwnedOf(tableName: string, owner: string, endpointId: string) {
  return {
    ...endpointItem(tableName, endpointId),
    ConditionExpression: 'ownerKeyId = :o',
    ExpressionAttributeValues: marshall({ ':o': owner }),
  } satisfies TransactWriteItem['Delete'];
}

/**
 * The webhook tool's removal of an endpoint no API key holds: one DeleteItem, only while it exists without an
 * owner (an owned one is removed with its owner's item: lib/webhooks/key-endpoints.ts `removeEndpoint`).
 * @returns false when there is no such endpoint, or it has an owner.
 */
export function deleteUnowned(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
): Promise<boolean> {
  const item = endpointItem(tableName, endpointId);
  const condition = `${itemExists} AND attribute_not_exists(ownerKeyId)`;
  return conditional(client.send(new DeleteItemCommand({ ...item, ConditionExpression: condition })));
}

/** What the operations on one endpoint read of it: its owner, event types and creation time (never its secret). */
export interface EndpointOwnership {
  ownerKeyId?: string;
  events: EndpointEventType[];
  createdAt?: string;
}

/**
 * The attributes `projection` (placeholders `names`) of the endpoint `endpointId`, or undefined when there is no
 * such endpoint: one strongly consistent GetItem.
 */
async function readAttributes(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  projection: string,
  names?: Record<string, string>,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(
    new GetItemCommand({
      ...endpointItem(tableName, endpointId),
      ConsistentRead: true,
      ProjectionExpression: projection,
      ...(names && { ExpressionAttributeNames: names }),
    }),
  );
  return Item && unmarshall(Item);
}

/** The owner of a stored item, when it has one. */
function ownerOf(item: Record<string, unknown>): { ownerKeyId?: string } {
  return item.ownerKeyId === undefined ? {} : { ownerKeyId: String(item.ownerKeyId) };
}

/** The owner, event types and creation time of the endpoint `endpointId`, or undefined: one consistent GetItem. */
export async function ownershipOf(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
): Promise<EndpointOwnership | undefined> {
  const item = await readAttributes(client, tableName, endpointId, 'ownerKeyId, #events, createdAt', {
    '#events': 'events',
  });
  return (
    item && {
      events: eventsOf(item),
      ...ownerOf(item),
      ...(item.createdAt !== undefined && { createdAt: String(item.createdAt) }),
    }
  );
}

/** The owner and URL of the endpoint `endpointId`, or undefined: one consistent GetItem (a removal's read). */
export async function ownerAndUrlOf(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
): Promise<{ ownerKeyId?: string; url: string } | undefined> {
  const item = await readAttributes(client, tableName, endpointId, '#url, ownerKeyId', { '#url': 'url' });
  return item && { url: String(item.url), ...ownerOf(item) };
}

/** The `disabledReason` of the endpoint `endpointId` (strongly consistent), if any. */
export async function disabledReasonOf(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
): Promise<string | undefined> {
  const item = await readAttributes(client, tableName, endpointId, 'disabledReason');
  return item?.disabledReason as string | undefined;
}

/** Requests per {@link endpointViews} while DynamoDB leaves keys unprocessed. */
const batchRounds = 5;

/** The attributes an endpoint is read with for the API: every one but the secret. */
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

/**
 * The endpoints `endpointIds` (at most 100) that still exist, never their secrets: strongly consistent
 * BatchGetItem; what DynamoDB leaves unprocessed is asked again.
 * @throws HttpError 503 when keys are still unprocessed after {@link batchRounds} requests.
 */
export async function endpointViews(
  client: DynamoDBClient,
  tableName: string,
  endpointIds: readonly string[],
): Promise<EndpointView[]> {
  let keys = endpointIds.map((endpointId) => marshall(endpointKey(endpointId)));
  const views: EndpointView[] = [];
  for (let round = 1; keys.length > 0; round++) {
    const { Responses, UnprocessedKeys } = await client.send(
      new BatchGetItemCommand({
        RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true, ...viewProjection } },
      }),
    );
    for (const item of Responses?.[tableName] ?? []) views.push(viewOf(item));
    keys = UnprocessedKeys?.[tableName]?.Keys ?? [];
    if (keys.length > 0) {
      if (round === batchRounds) throw new HttpError('service_unavailable', 'the store is busy; retry');
      await setTimeout(20 * round);
    }
  }
  return views;
}

/**
 * Gives `owner`'s endpoint `existing` the `events`, enabled again when disabled (never when its chain has no live
 * key: disabled `key_revoked` or `key_expired` since the read): one conditional UpdateItem.
 * @returns it, or undefined when it moved on (or was removed) since the read.
 */
export async function refreshOwned(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  existing: EndpointView,
  events: readonly EndpointEventType[],
): Promise<EndpointView | undefined> {
  const disabled = existing.state === 'disabled';
  try {
    const { Attributes } = await client.send(
      new UpdateItemCommand({
        ...endpointItem(tableName, existing.endpointId),
        UpdateExpression: disabled
          ? 'SET #events = :e, #state = :enabled REMOVE failingSince, disabledAt, disabledReason'
          : 'SET #events = :e',
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
}

/**
 * rotateWebhookSecret's write: `owner`'s endpoint `endpointId` signs with `secret`, its secret before kept as
 * `previousSecret` until `previousExpiresAt` (RFC 3339 UTC): one conditional UpdateItem (`ownerKeyId = :owner`).
 * @returns false when `owner` holds no such endpoint.
 */
export function replaceSecret(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  endpointId: string,
  secret: string,
  previousExpiresAt: string,
): Promise<boolean> {
  return conditional(
    client.send(
      new UpdateItemCommand({
        ...endpointItem(tableName, endpointId),
        UpdateExpression: 'SET previousSecret = secret, previousSecretExpiresAt = :expires, secret = :secret',
        ConditionExpression: 'ownerKeyId = :owner',
        ExpressionAttributeValues: marshall({
          ':expires': previousExpiresAt,
          ':secret': secret,
          ':owner': owner,
        }),
      }),
    ),
  );
}

/** The state transitions the delivery writes (lib/webhooks/endpoint.ts `EndpointState`). */
export interface EndpointHealth {
  /**
   * An attempt cut at the fast lane's limit, or failed at `failedAt`: `isolated` (slow lane), and after a failure
   * `failingSince` set unless already set. Never undoes `disabled`.
   */
  isolate(endpointId: string, failedAt?: Date): Promise<void>;
  /** A delivered attempt: `failingSince` removed; back to `enabled` when `quick` (within the fast lane's limit). */
  delivered(endpointId: string, quick: boolean): Promise<void>;
  /**
   * The breaker's write (lib/webhooks/breaker.ts): `disabled` at `now` (reason `failing`), when `failingSince` is
   * still `failingSince` (no delivery since). @returns true when this call disabled it.
   */
  disable(endpointId: string, failingSince: string, now: Date): Promise<boolean>;
}

/**
 * One UpdateItem of the endpoint `endpointId` in `tableName`, only while it exists and `condition` holds; `state`
 * is named `#s`. @returns false when the condition failed.
 */
function update(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  expression: string,
  condition: string,
  values: Record<string, string>,
): Promise<boolean> {
  return conditional(
    client.send(
      new UpdateItemCommand({
        ...endpointItem(tableName, endpointId),
        UpdateExpression: expression,
        ConditionExpression: `${itemExists} AND (${condition})`,
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: marshall(values),
      }),
    ),
  );
}

/** Not `disabled` (`:d`). */
const notDisabled = 'attribute_not_exists(#s) OR #s <> :d';

/**
 * The endpoint `endpointId` `disabled` at `now` for `reason`, while `condition` holds (`values` holds the values
 * it names besides `:d`, `disabled`). @returns false when the condition failed.
 */
function disableWhen(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  reason: DisabledReason,
  now: Date,
  condition: string,
  values: Record<string, string> = {},
) {
  return update(
    client,
    tableName,
    endpointId,
    'SET #s = :d, disabledAt = :n, disabledReason = :r',
    condition,
    { ':d': 'disabled', ':n': now.toISOString(), ':r': reason, ...values },
  );
}

/** The delivery's state transitions over `client` and the endpoints table `tableName`. */
export function endpointHealth(client: DynamoDBClient, tableName: string): EndpointHealth {
  return {
    async isolate(id, failedAt) {
      await update(
        client,
        tableName,
        id,
        failedAt ? 'SET #s = :i, failingSince = if_not_exists(failingSince, :n)' : 'SET #s = :i',
        notDisabled,
        { ':i': 'isolated', ':d': 'disabled', ...(failedAt && { ':n': failedAt.toISOString() }) },
      );
    },
    async delivered(id, quick) {
      await update(
        client,
        tableName,
        id,
        quick ? 'SET #s = :e REMOVE failingSince' : 'REMOVE failingSince',
        notDisabled,
        quick ? { ':d': 'disabled', ':e': 'enabled' } : { ':d': 'disabled' },
      );
    },
    disable: (id, failingSince, now) =>
      disableWhen(client, tableName, id, 'failing', now, `failingSince = :f AND (${notDisabled})`, {
        ':f': failingSince,
      }),
  };
}

/**
 * The webhook tool's `enable`: the endpoint `enabled`, its failing and disabled times removed.
 * @returns false when there is no such endpoint.
 */
export function enableEndpoint(client: DynamoDBClient, tableName: string, endpointId: string) {
  return update(
    client,
    tableName,
    endpointId,
    'SET #s = :e REMOVE failingSince, disabledAt, disabledReason',
    itemExists,
    { ':e': 'enabled' },
  );
}

/**
 * The webhook tool's `disable`: the endpoint `disabled` at `now`, reason `operator` (no attempt until `enable`, or
 * for an API key's endpoint until its key creates it again: docs/contract.md "History and events").
 * @returns false when there is no such endpoint.
 */
export function disableEndpoint(client: DynamoDBClient, tableName: string, endpointId: string, now: Date) {
  return disableWhen(client, tableName, endpointId, 'operator', now, itemExists);
}

/**
 * The key check's disable of an API key's endpoint (lib/webhooks/owner-access.ts): `disabled` at `now` with
 * `reason`, while it still belongs to `owner` and is not disabled (re-enabled only by a live key of the chain
 * creating its URL again: docs/contract.md "History and events").
 * @returns true when this call disabled it.
 */
export function disableForKey(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  owner: string,
  reason: KeyRefusal,
  now: Date,
) {
  return disableWhen(client, tableName, endpointId, reason, now, `ownerKeyId = :o AND (${notDisabled})`, {
    ':o': owner,
  });
}
