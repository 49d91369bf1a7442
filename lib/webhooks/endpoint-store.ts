/**
 * The webhook endpoints table, one item per `endpointId` (docs/contract.md "History and events"):
 * written by the webhook tool, scanned by the fan-out, read by the delivery.
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateScan,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { conditional } from '../clients/dynamodb-client.ts';
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

/**
 * Where an endpoint's deliveries go (docs/architecture.md "Events and webhooks"): `enabled`, the fast lane;
 * `isolated`, the slow lane (its last attempt failed or outlasted the fast lane's limit); `disabled`, no attempt
 * (the breaker, the tool or its key's check disabled it, {@link DisabledReason}: kept as failures until enabled). A
 * endpoint stored before states existed is `enabled`.
 */
export type EndpointState = 'enabled' | 'isolated' | 'disabled';

/**
 * Why an endpoint is `disabled`: `failing`, the breaker (every attempt failed for its period); `operator`, the
 * webhook tool's `disable`; for an API key's endpoint, `key_revoked`, `key_expired` or `scope_missing`, its key no
 * longer reads what it delivers (lib/webhooks/owner-access.ts). Absent on items disabled before reasons existed.
 */
export type DisabledReason = 'failing' | 'operator' | KeyRefusal;

/** An endpoint: where to POST which event types, signed with which secret. Times are RFC 3339 UTC. */
export interface Endpoint {
  /** `ws_` + 16 base64url characters (96 random bits). */
  endpointId: string;
  url: string;
  events: EndpointEventType[];
  /** `whsec_` + base64 of 24 random bytes; shown to the operator once, never listed. */
  secret: string;
  /** The secret before the last rotateWebhookSecret, still signing until {@link previousSecretExpiresAt}. */
  previousSecret?: string;
  /** When {@link previousSecret} stops signing (RFC 3339 UTC): 24 hours after the rotation. */
  previousSecretExpiresAt?: string;
  createdAt: string;
  state: EndpointState;
  /** The first failed attempt since the last delivered one; absent while the last attempt was delivered. */
  failingSince?: string;
  /** When the breaker, the tool or its key's check disabled it (state `disabled`). */
  disabledAt?: string;
  /** Why it is disabled (state `disabled`). */
  disabledReason?: DisabledReason;
  /**
   * The API key that created it through the API (`createWebhookEndpoint`): the first key id of its rotation
   * chain, so a key made by `rotate` keeps it; absent for the tool's endpoints (lib/webhooks/key-endpoints.ts).
   */
  ownerKeyId?: string;
}

/** What the fan-out reads of an endpoint: never its secret (lib/webhooks/fan-out.ts). */
export type EndpointRoute = Pick<Endpoint, 'endpointId' | 'events' | 'state' | 'ownerKeyId'> &
  Partial<Pick<Endpoint, 'createdAt'>>;

/** Random bytes in a signing secret (Standard Webhooks: between 24 and 64). */
const secretBytes = 24;

/**
 * A new signing secret: `whsec_` + base64 of 24 random bytes, the form Standard Webhooks libraries read. Here,
 * not beside the signing, so that the fan-out's bundle does not carry the signing library.
 */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(secretBytes).toString('base64')}`;
}

/** A new endpoint id: `ws_` + base64url of 12 random bytes. */
export function newEndpointId(): string {
  return `ws_${randomBytes(12).toString('base64url')}`;
}

/** A new `enabled` endpoint to `events` at `url`, created at `now`, with a new id and secret; `ownerKeyId` when given. */
export function newEndpoint(
  url: string,
  events: readonly EndpointEventType[],
  now: Date,
  ownerKeyId?: string,
): Endpoint {
  return {
    endpointId: newEndpointId(),
    url,
    events: [...events],
    secret: newSigningSecret(),
    createdAt: now.toISOString(),
    state: 'enabled',
    ...(ownerKeyId === undefined ? {} : { ownerKeyId }),
  };
}

/** The endpoints table's operations. */
export interface EndpointStore {
  /**
   * Stores a new endpoint to `events` at `url` (already checked by the SSRF guard), with a new id and secret.
   * @returns it, secret included.
   */
  add(url: string, events: readonly EndpointEventType[], now: Date): Promise<Endpoint>;
  /** The endpoint with this id, or undefined: one GetItem (strongly consistent). */
  get(endpointId: string): Promise<Endpoint | undefined>;
  /** Every endpoint (a Scan of all pages: the fan-out and the tool, never an API request). */
  list(): Promise<Endpoint[]>;
  /** Removes the endpoint. @returns false when there was none with this id. */
  remove(endpointId: string): Promise<boolean>;
}

/** A stored state, `enabled` when absent (items stored before states existed). */
function stateOf(item: Record<string, unknown>): EndpointState {
  return (item.state as EndpointState | undefined) ?? 'enabled';
}

/** A stored item as an endpoint (`events`, a list of strings, as an array). */
export function fromStored(item: Record<string, unknown>): Endpoint {
  return {
    endpointId: storedEndpointIdOf(item),
    url: String(item.url),
    events: [...((item.events as EndpointEventType[] | undefined) ?? [])],
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

/**
 * The secrets a delivery at `now` is signed with: the endpoint's secret, then its previous one while that
 * has not expired (docs/contract.md "History and events": rotateWebhookSecret).
 */
export function signingSecrets(
  endpoint: Pick<Endpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  const { secret, previousSecret, previousSecretExpiresAt } = endpoint;
  const overlapping =
    previousSecret !== undefined &&
    previousSecretExpiresAt !== undefined &&
    Date.parse(previousSecretExpiresAt) > now.getTime();
  return overlapping ? [secret, previousSecret] : [secret];
}

/**
 * The fan-out's read of the endpoints table alone: a Scan of all pages with `ProjectionExpression`
 * endpointId, events, state, ownerKeyId, createdAt, so that no signing secret leaves the table for the fan-out
 * (docs/architecture.md "Events and webhooks"). `state` is a DynamoDB reserved word, hence the name
 * placeholders.
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
            events: [...((item.events as EndpointEventType[] | undefined) ?? [])],
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

/** The table and key of the endpoint `endpointId` in `tableName`: the start of a command on its item. */
export function endpointItem(tableName: string, endpointId: string) {
  return { TableName: tableName, Key: marshall(endpointKey(endpointId)) };
}

/**
 * The reading half of {@link endpointStore} alone (the delivery function), so that its bundle carries none
 * of the other operations' commands (docs/architecture.md "Bundles").
 */
export function endpointReader(client: DynamoDBClient, tableName: string): Pick<EndpointStore, 'get'> {
  return {
    async get(endpointId) {
      const { Item } = await client.send(
        new GetItemCommand({ ...endpointItem(tableName, endpointId), ConsistentRead: true }),
      );
      return Item && fromStored(unmarshall(Item));
    },
  };
}

/**
 * The endpoint store over `client` and the table `tableName`: the low-level client with util-dynamodb's
 * marshalling, not the document client, which the delivery function's bundle has no room for
 * (docs/architecture.md "Bundles").
 */
export function endpointStore(client: DynamoDBClient, tableName: string): EndpointStore {
  return {
    async add(url, events, now) {
      const endpoint = newEndpoint(url, events, now);
      await client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: marshall(toStoredNames(endpoint)),
          ConditionExpression: itemAbsent,
        }),
      );
      return endpoint;
    },
    ...endpointReader(client, tableName),
    async list() {
      const endpoints: Endpoint[] = [];
      for await (const page of paginateScan({ client }, { TableName: tableName })) {
        for (const item of page.Items ?? []) endpoints.push(fromStored(unmarshall(item)));
      }
      return endpoints;
    },
    remove: (endpointId) => deleteEndpoint(client, tableName, endpointId),
  };
}

/**
 * One DeleteItem of the endpoint `endpointId` in `tableName`, only while `condition` holds (default: it
 * exists). @returns false when the condition failed.
 */
export async function deleteEndpoint(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  condition = itemExists,
): Promise<boolean> {
  const item = endpointItem(tableName, endpointId);
  return conditional(client.send(new DeleteItemCommand({ ...item, ConditionExpression: condition })));
}
