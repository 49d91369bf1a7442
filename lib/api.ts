/** The operation table, the one definition of the API: docs/architecture.md "One table, three renderings". */

import { type TableId, tables } from './tables.ts';

/** The stage name, which is also the version prefix of every address (docs/service-spec.md §9.1). */
export const stageName = 'v1';

/** What a function may do to the tables: for each table it uses, the only DynamoDB actions allowed (least privilege). */
export type TableAccess = Readonly<Partial<Record<TableId, readonly string[]>>>;

/** A Lambda function: its handler module (path from the project root) and its permissions on the tables. */
export interface FunctionDefinition {
  /** Name used for the function's construct id and logs, in the spec's terms. */
  name: string;
  /** Handler module, relative to the project root; it exports `handler`. */
  entry: string;
  /** The tables it reads or writes, each with exactly its DynamoDB actions. */
  access: TableAccess;
}

/** The scopes a key can hold (docs/contract.md "Authentication and authorization"). */
export type Scope =
  | 'inventory:read'
  | 'inventory:write'
  | 'orders:read'
  | 'orders:write'
  | 'events:read'
  | 'webhooks:manage';

/**
 * Every scope, in the contract's order; a key stored before scopes existed holds them all, `events:read` and
 * `webhooks:manage` too; a key stored with its scopes holds only those (docs/implementation.md "Scopes and rates").
 */
export const scopes: readonly Scope[] = [
  'inventory:read',
  'inventory:write',
  'orders:read',
  'orders:write',
  'events:read',
  'webhooks:manage',
];

/** True when `value` names a {@link Scope}. */
export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/** One API operation: a function behind a method and path, protected by the bearer authorizer. */
export interface Operation extends FunctionDefinition {
  method: 'GET' | 'PATCH' | 'POST' | 'DELETE';
  path: string;
  /** The scope a key needs to call it. */
  scope: Scope;
  /** The query parameters it declares; any other is 400 (docs/contract.md "Requests as API Gateway delivers them"). */
  queryParameters: readonly string[];
  /**
   * Present when the response is streamed (`responseTransferMode: STREAM`, Lambda response streaming), with the
   * function's memory and timeout sized for the largest response it supports.
   */
  streaming?: { memoryMb: number; timeoutSeconds: number };
  /**
   * Deprecated with a sunset (docs/service-spec.md §9.4): the stack passes the environment's dates
   * (infra/settings.ts `deprecation`) as `DEPRECATED_AT` and `SUNSET_AT`.
   */
  deprecated?: true;
  /**
   * Present when it sends delivery messages to the webhook delivery queue, the fast lane (one SendMessage each;
   * sendTestWebhook, redeliverWebhook):
   * the stack grants `sqs:SendMessage` on that queue alone and passes its URL (infra/inventory-stack.ts).
   */
  sendsDeliveries?: true;
}

/** The tables a function uses, in the order of {@link tables}. */
export function tablesOf(definition: FunctionDefinition): TableId[] {
  return (Object.keys(tables) as TableId[]).filter((table) => definition.access[table] !== undefined);
}

/** Powertools' idempotency records (lib/idempotency/idempotency-key.ts): read, claim, complete, release. */
const idempotencyAccess = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];

/** The operations of the service (docs/service-spec.md §4). Every one requires the authorizer (docs/service-spec.md §5.1). */
export const operations: readonly Operation[] = [
  {
    name: 'listInventory',
    method: 'GET',
    path: '/inventory',
    entry: 'functions/list-inventory/handler.ts',
    // Query: the list's and the low entries' indexes; BatchGetItem: `petIds`.
    access: { inventory: ['dynamodb:Query', 'dynamodb:BatchGetItem'] },
    scope: 'inventory:read',
    queryParameters: ['limit', 'cursor', 'status', 'lowStock', 'petIds'],
    // 15 minutes: the longest stream API Gateway REST allows (local-aws/behaviour.md S9); the largest
    // list that fits is computed in docs/performance.md "The largest list".
    streaming: { memoryMb: 512, timeoutSeconds: 900 },
  },
  {
    name: 'getInventoryItem',
    method: 'GET',
    path: '/inventory/{petId}',
    entry: 'functions/get-inventory-item/handler.ts',
    access: { inventory: ['dynamodb:GetItem'] },
    scope: 'inventory:read',
    queryParameters: [],
  },
  {
    name: 'updateInventory',
    method: 'PATCH',
    path: '/inventory/{petId}',
    entry: 'functions/update-inventory/handler.ts',
    // UpdateItem in a one-action TransactWriteItems (IAM authorizes a transaction by its items' actions), then
    // GetItem reads the entry to answer it. The idempotency table: the Idempotency-Key, as for placeOrder.
    access: { inventory: ['dynamodb:UpdateItem', 'dynamodb:GetItem'], idempotency: idempotencyAccess },
    scope: 'inventory:write',
    queryParameters: [],
  },
  {
    name: 'batchUpdateInventory',
    method: 'POST',
    path: '/inventory/batch',
    entry: 'functions/batch-update-inventory/handler.ts',
    // BatchGetItem reads the entries; UpdateItem sets them in one TransactWriteItems, which IAM authorizes by
    // its items' actions (DynamoDB Developer Guide, "Using IAM with DynamoDB transactions"). The idempotency
    // table: Powertools' records of the Idempotency-Key, as for placeOrder.
    access: {
      inventory: ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      idempotency: idempotencyAccess,
    },
    scope: 'inventory:write',
    queryParameters: [],
  },
  {
    name: 'addPet',
    method: 'POST',
    path: '/pets',
    entry: 'functions/add-pet/handler.ts',
    // PutItem in a one-action TransactWriteItems; the idempotency table: the Idempotency-Key, as for placeOrder.
    access: { inventory: ['dynamodb:PutItem'], idempotency: idempotencyAccess },
    scope: 'inventory:write',
    queryParameters: [],
  },
  {
    name: 'getPetById',
    method: 'GET',
    path: '/pets/{petId}',
    entry: 'functions/get-pet-by-id/handler.ts',
    access: { inventory: ['dynamodb:GetItem'] },
    scope: 'inventory:read',
    queryParameters: [],
    deprecated: true,
  },
  {
    name: 'placeOrder',
    method: 'POST',
    path: '/store/orders',
    entry: 'functions/place-order/handler.ts',
    access: {
      inventory: ['dynamodb:UpdateItem'],
      orders: ['dynamodb:PutItem'],
      idempotency: idempotencyAccess,
    },
    scope: 'orders:write',
    queryParameters: [],
  },
  {
    name: 'listOrders',
    method: 'GET',
    path: '/store/orders',
    entry: 'functions/list-orders/handler.ts',
    access: { orders: ['dynamodb:Query'] },
    scope: 'orders:read',
    queryParameters: ['limit', 'cursor'],
  },
  {
    name: 'getOrderById',
    method: 'GET',
    path: '/store/orders/{orderId}',
    entry: 'functions/get-order-by-id/handler.ts',
    access: { orders: ['dynamodb:GetItem'] },
    scope: 'orders:read',
    queryParameters: [],
  },
  {
    name: 'updateOrder',
    method: 'PATCH',
    path: '/store/orders/{orderId}',
    entry: 'functions/update-order/handler.ts',
    // GetItem reads the order; UpdateItem moves it in one TransactWriteItems, alone or, for a cancellation, with
    // the restock, which IAM authorizes by its items' actions (DynamoDB Developer Guide, "Using IAM with
    // DynamoDB transactions"), as for placeOrder.
    access: { inventory: ['dynamodb:UpdateItem'], orders: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
    scope: 'orders:write',
    queryParameters: [],
  },
  {
    name: 'listInventoryHistory',
    method: 'GET',
    path: '/inventory/{petId}/history',
    entry: 'functions/list-inventory-history/handler.ts',
    // GetItem: 404 when the pet has no entry; Query: the pet's change records, newest first.
    access: { inventory: ['dynamodb:GetItem'], inventoryHistory: ['dynamodb:Query'] },
    scope: 'inventory:read',
    queryParameters: ['limit', 'cursor'],
  },
  {
    name: 'listEvents',
    method: 'GET',
    path: '/events',
    entry: 'functions/list-events/handler.ts',
    // GetItem: the id marker of `after=<event id>`; Query: the logs, after a position.
    access: { events: ['dynamodb:GetItem', 'dynamodb:Query'] },
    scope: 'events:read',
    queryParameters: ['limit', 'type', 'after'],
  },
  {
    name: 'createWebhookEndpoint',
    method: 'POST',
    path: '/webhook-endpoints',
    entry: 'functions/create-webhook-endpoint/handler.ts',
    // GetItem reads the key's endpoint ids, BatchGetItem their URLs (without secrets); one TransactWriteItems
    // adds the id and the URL's hash to the owner's item (UpdateItem: one endpoint per key and URL) and puts the
    // endpoint (PutItem), authorized by its items' actions; UpdateItem on an endpoint re-enables the key's endpoint for the same URL (lib/webhooks/key-endpoints.ts).
    // apiKeys GetItem: the caller's key again, revoked or expired within the authorizer's cache period (401:
    // lib/webhooks/live-caller.ts).
    access: {
      webhookEndpoints: ['dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      webhookEndpointOwners: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      apiKeys: ['dynamodb:GetItem'],
    },
    scope: 'webhooks:manage',
    queryParameters: [],
  },
  {
    name: 'listWebhookEndpoints',
    method: 'GET',
    path: '/webhook-endpoints',
    entry: 'functions/list-webhook-endpoints/handler.ts',
    // GetItem: the key's endpoint ids; BatchGetItem: those endpoints, projected without their secrets.
    access: { webhookEndpoints: ['dynamodb:BatchGetItem'], webhookEndpointOwners: ['dynamodb:GetItem'] },
    scope: 'webhooks:manage',
    queryParameters: [],
  },
  {
    name: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/webhook-endpoints/{endpointId}',
    entry: 'functions/delete-webhook-endpoint/handler.ts',
    // GetItem: the endpoint's owner and URL; one TransactWriteItems: DeleteItem of the endpoint only if the key
    // owns it, UpdateItem of its owner's item (its id and its URL's hash).
    access: {
      webhookEndpoints: ['dynamodb:GetItem', 'dynamodb:DeleteItem'],
      webhookEndpointOwners: ['dynamodb:UpdateItem'],
    },
    scope: 'webhooks:manage',
    queryParameters: [],
  },
  {
    name: 'listWebhookAttempts',
    method: 'GET',
    path: '/webhook-endpoints/{endpointId}/attempts',
    entry: 'functions/list-webhook-attempts/handler.ts',
    // GetItem: the endpoint's owner (404 for another key's); Query: its attempts, newest first.
    access: { webhookEndpoints: ['dynamodb:GetItem'], webhookAttempts: ['dynamodb:Query'] },
    scope: 'webhooks:manage',
    queryParameters: ['limit', 'cursor'],
  },
  {
    name: 'sendTestWebhook',
    method: 'POST',
    path: '/webhook-endpoints/{endpointId}/test',
    entry: 'functions/send-test-webhook/handler.ts',
    // GetItem: the endpoint's owner (404 for another key's); the test event goes to the delivery queue directly.
    // apiKeys GetItem: the caller's key again (401 once revoked or expired: lib/webhooks/live-caller.ts).
    access: { webhookEndpoints: ['dynamodb:GetItem'], apiKeys: ['dynamodb:GetItem'] },
    scope: 'webhooks:manage',
    queryParameters: [],
    sendsDeliveries: true,
  },
  {
    name: 'redeliverWebhook',
    method: 'POST',
    path: '/webhook-endpoints/{endpointId}/redeliveries',
    entry: 'functions/redeliver-webhook/handler.ts',
    // GetItem: the endpoint's owner, event types and creation (404 for another key's); on the events feed, the
    // event's id marker and its item (lib/events/event-feed.ts `eventById`); the delivery goes to the delivery queue.
    access: { webhookEndpoints: ['dynamodb:GetItem'], events: ['dynamodb:GetItem'] },
    scope: 'webhooks:manage',
    queryParameters: [],
    sendsDeliveries: true,
  },
  {
    name: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhook-endpoints/{endpointId}/rotate-secret',
    entry: 'functions/rotate-webhook-secret/handler.ts',
    // UpdateItem: the new secret and the previous one with its expiry, only if the key owns the endpoint.
    // apiKeys GetItem: the caller's key again (401 once revoked or expired: lib/webhooks/live-caller.ts).
    access: { webhookEndpoints: ['dynamodb:UpdateItem'], apiKeys: ['dynamodb:GetItem'] },
    scope: 'webhooks:manage',
    queryParameters: [],
  },
];

/**
 * The operation named `name` in {@link operations}.
 * @throws Error when there is none: a wiring mistake, raised when the function's module loads.
 */
export function operationNamed(name: string): Operation {
  const operation = operations.find((candidate) => candidate.name === name);
  if (!operation) throw new Error(`no operation named ${name}`);
  return operation;
}

/** The TOKEN authorizer on the `Authorization` header (docs/service-spec.md §5). */
export const authorizer: FunctionDefinition = {
  name: 'authorizer',
  entry: 'functions/authorizer/handler.ts',
  // UpdateItem: the last-used date, written at most once per cache period per key (lib/auth/authorize.ts).
  access: { apiKeys: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
};

/** Seconds API Gateway (and the local stand-in) caches an authorizer's Allow per token. */
export const authorizerCacheTtlSeconds = 300;

/**
 * The functions of change records and webhooks (docs/contract.md "History and events"), invoked by AWS
 * rather than by the API: the streams' consumer, the bus rule's fan-out to endpoints, the queue's deliveries.
 */
export const eventFunctions = {
  /**
   * Reads both tables' streams; writes each change record once into `inventoryHistory`, appends each event once
   * to the events feed (GetItem: a log's head and the id markers; UpdateItem and PutItem: the items of its
   * TransactWriteItems), then puts it on the bus.
   */
  recordChanges: {
    name: 'recordChanges',
    entry: 'functions/record-changes/handler.ts',
    access: {
      // UpdateItem: the low-stock index attribute of an entry (lib/inventory/low-stock.ts).
      inventory: ['dynamodb:UpdateItem'],
      inventoryHistory: ['dynamodb:Query', 'dynamodb:PutItem'],
      events: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    },
  },
  /**
   * Target of the bus's rule: sends one delivery message per matching endpoint to its delivery lane. Scan of
   * the API keys: the check of the keys behind the endpoints, once per batch; UpdateItem disables an endpoint whose
   * key no longer reads what it delivers (lib/webhooks/owner-access.ts).
   */
  fanOutWebhooks: {
    name: 'fanOutWebhooks',
    entry: 'functions/fan-out-webhooks/handler.ts',
    access: { webhookEndpoints: ['dynamodb:Scan', 'dynamodb:UpdateItem'], apiKeys: ['dynamodb:Scan'] },
  },
  /**
   * Reads both delivery lanes: signs and POSTs each delivery, retries with backoff, keeps the failures; UpdateItem
   * writes an endpoint's state (slow lane, breaker: lib/webhooks/endpoint-health.ts).
   */
  deliverWebhooks: {
    name: 'deliverWebhooks',
    entry: 'functions/deliver-webhooks/handler.ts',
    // PutItem on the attempts table: each attempt's record (lib/webhooks/attempt-log.ts).
    access: {
      webhookEndpoints: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      webhookFailures: ['dynamodb:PutItem'],
      webhookAttempts: ['dynamodb:PutItem'],
    },
  },
} as const satisfies Record<string, FunctionDefinition>;
