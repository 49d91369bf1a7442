/** The DynamoDB tables: keys, global secondary indexes, time to live (docs/architecture.md "Data layout"). */
import { storedEndpointId } from './webhooks/stored-names.ts';

/** A key attribute: its name and DynamoDB type (`N` number, `S` string). */
export interface KeyAttribute {
  name: string;
  type: 'N' | 'S';
}

/** A global secondary index: its keys and the other attributes it projects. */
export interface GlobalIndex {
  name: string;
  partitionKey: KeyAttribute;
  sortKey: KeyAttribute;
  nonKeyAttributes: readonly string[];
}

/** A table: the environment variable that carries its name, its partition key, its global secondary indexes. */
export interface TableDefinition {
  env: string;
  partitionKey: KeyAttribute;
  globalIndexes: readonly GlobalIndex[];
  /** The sort key, for a table whose partition holds several items (a pet's change records). */
  sortKey?: KeyAttribute;
  /**
   * The table's CloudFormation name when it is not its id's (`WebhookSubscriptions` for `webhookEndpoints`): a
   * table whose logical id changes is replaced and loses its data, so a table keeps the name it was created with.
   */
  storedName?: string;
  /** The attribute DynamoDB's time to live reads (epoch seconds), when items expire. */
  timeToLiveAttribute?: string;
  /**
   * True when the table has a DynamoDB stream of new and old images, read by the change records' consumer
   * (docs/contract.md "History and events").
   */
  stream?: true;
}

/**
 * The inventory's list index (docs/architecture.md "Data layout"): partition key a shard of petId, sort key petId
 * (DynamoDB sorts a Number sort key numerically), so a merge of the shards' Queries is the list in petId order.
 */
export const listIndex = {
  name: 'byPetId',
  shardAttribute: 'listShard',
  sortAttribute: 'petId',
  /** Index partitions the writes spread over; each caps its own write rate, so the index takes 8 times one's. */
  shards: 8,
} as const;

/**
 * The inventory's low-stock index (listInventory `lowStock=true`; docs/architecture.md "Low stock"): sparse, an
 * entry is in it only while it carries `lowShard` (its list shard), which the change records' consumer sets
 * while the entry is low (`quantity <= reorderPoint`) and removes when it is not (lib/inventory/low-stock.ts).
 * Its reads follow the number of low entries, not the table's size.
 */
export const lowStockIndex = {
  name: 'lowStock',
  shardAttribute: 'lowShard',
  sortAttribute: 'petId',
  shards: listIndex.shards,
} as const;

/** The key attribute `name` of DynamoDB type `type`. */
function key(name: string, type: KeyAttribute['type']): KeyAttribute {
  return { name, type };
}

/**
 * A table without global secondary indexes: the variable `env` carries its name, `partitionKey` its key, `more`
 * its sort key or time to live, if any.
 */
function table(
  env: string,
  partitionKey: KeyAttribute,
  more: Pick<TableDefinition, 'sortKey' | 'timeToLiveAttribute' | 'storedName'> = {},
): TableDefinition {
  return { env, partitionKey, ...more, globalIndexes: [] };
}

/**
 * The tables, used by the stack, the local server and the tools alike. The inventory's index returns entries
 * in petId order (`listIndex` below; shards by lib/inventory/list-shard.ts).
 */
export const tables = {
  inventory: {
    env: 'INVENTORY_TABLE_NAME',
    partitionKey: { name: 'petId', type: 'N' },
    stream: true,
    globalIndexes: [
      {
        name: listIndex.name,
        partitionKey: { name: listIndex.shardAttribute, type: 'N' },
        sortKey: { name: listIndex.sortAttribute, type: 'N' },
        nonKeyAttributes: ['quantity', 'status', 'reorderPoint'],
      },
      {
        name: lowStockIndex.name,
        partitionKey: { name: lowStockIndex.shardAttribute, type: 'N' },
        sortKey: { name: lowStockIndex.sortAttribute, type: 'N' },
        nonKeyAttributes: ['quantity', 'status', 'reorderPoint'],
      },
    ],
  },
  apiKeys: table('API_KEYS_TABLE_NAME', key('keyDigest', 'S')),
  /**
   * Store orders (docs/contract.md "Store orders"). The global secondary index `newestFirst` lists them without
   * a scan: every order carries the same `listPartition` value and its `orderId` is time-ordered
   * (lib/assigned-ids.ts `newOrderId`), so Queries on that one partition in descending `orderId` order, the ids up
   * to 2^53 - 1 before the larger ones assigned earlier, are newest first (lib/orders/store.ts `orderStore`).
   */
  orders: {
    env: 'ORDERS_TABLE_NAME',
    partitionKey: { name: 'orderId', type: 'N' },
    stream: true,
    globalIndexes: [
      {
        name: 'newestFirst',
        partitionKey: { name: 'listPartition', type: 'S' },
        sortKey: { name: 'orderId', type: 'N' },
        nonKeyAttributes: ['petId', 'quantity', 'shipDate', 'status', 'complete'],
      },
    ],
  },
  /**
   * placeOrder's idempotency records (Powertools for AWS Lambda's DynamoDB persistence layer: partition key
   * `id`, expiry in `expiration`, removed by DynamoDB's TTL after it) and its orders' claims, written in the
   * orders' transactions (lib/orders/claim.ts; docs/architecture.md "Orders exactly once").
   */
  idempotency: table('IDEMPOTENCY_TABLE_NAME', key('id', 'S'), { timeToLiveAttribute: 'expiration' }),
  /**
   * The change records of the inventory (docs/contract.md "History and events"): a pet's records under its
   * `petId`, sorted by their gap-free `sequence`; written by the change records' consumer only.
   */
  inventoryHistory: table('INVENTORY_HISTORY_TABLE_NAME', key('petId', 'N'), {
    sortKey: key('sequence', 'N'),
  }),
  /**
   * The events feed (listEvents; docs/architecture.md "The events feed"): append-only logs, each event under its
   * log (`log`, e.g. `inventory.changed#3`) at a time-ordered `position`; per log a head item (position 0) holding
   * the last position; per event an id marker (log `id#<event id>`, position 0). Events and markers expire by
   * `expiresAt` (epoch seconds, 30 days); written by the change records' consumer only.
   */
  events: table('EVENTS_TABLE_NAME', key('log', 'S'), {
    sortKey: key('position', 'N'),
    timeToLiveAttribute: 'expiresAt',
  }),
  /**
   * Webhook endpoints (Standard Webhooks), one item per endpoint id (stored as `endpointId`): managed by the
   * webhook tool, and the webhook endpoints of the API (an item with `ownerKeyId`: lib/webhooks/key-endpoints.ts).
   * Created as the webhook subscriptions table, whose CloudFormation name it keeps.
   */
  webhookEndpoints: table('WEBHOOK_ENDPOINTS_TABLE_NAME', key(storedEndpointId, 'S'), {
    storedName: 'WebhookSubscriptions',
  }),
  /**
   * The webhook endpoints each API key holds (docs/contract.md "History and events"), one item per owner
   * (`ownerKeyId`, the first key id of the key's rotation chain) with the set `endpointIds`: what the API lists
   * and what holds a key to 20. A table of its own, so that the fan-out's Scan of the endpoints reads
   * endpoints only (docs/architecture.md "Events and webhooks").
   */
  webhookEndpointOwners: table('WEBHOOK_ENDPOINT_OWNERS_TABLE_NAME', key('ownerKeyId', 'S')),
  /** Deliveries that failed for good, kept until an operator redrives them: by endpoint, then event id. */
  webhookFailures: table('WEBHOOK_FAILURES_TABLE_NAME', key(storedEndpointId, 'S'), {
    sortKey: key('eventId', 'S'),
  }),
  /**
   * Every webhook delivery attempt (listWebhookAttempts; docs/contract.md "History and events"): under its
   * endpoint's id (`endpointId`, an endpoint id) at a time-ordered `attemptId` (lib/webhooks/attempt-log.ts),
   * one PutItem per attempt by the delivery function, expiring by `expiresAt` (epoch seconds, 30 days).
   */
  webhookAttempts: table('WEBHOOK_ATTEMPTS_TABLE_NAME', key('endpointId', 'S'), {
    sortKey: key('attemptId', 'S'),
    timeToLiveAttribute: 'expiresAt',
  }),
} as const satisfies Record<string, TableDefinition>;

/** A table of {@link tables}. */
export type TableId = keyof typeof tables;
