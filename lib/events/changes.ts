/** Change records and their events: docs/contract.md "History and events". */
import type { PetStatus } from '../inventory/inventory-item.ts';
import type { ChangeReason } from '../inventory/last-change.ts';
import type { Order, OrderStatus } from '../orders/order.ts';

/** A value before and after a change; `from` is null when the change created the entry or the order. */
export interface FromTo<T> {
  from: T | null;
  to: T;
}

/**
 * One committed change of an inventory entry (`listInventoryHistory`, `inventory.changed`): `sequence` counts a
 * pet's changes from 1 without gaps; `occurredAt` is RFC 3339 UTC with milliseconds; `petId` a decimal int64.
 */
export interface InventoryChange {
  sequence: number;
  petId: string;
  occurredAt: string;
  reason: ChangeReason;
  quantity: FromTo<number>;
  status: FromTo<PetStatus>;
  /** For `order_placed` and `order_cancelled`. */
  orderId?: string;
  /** The API key's id; absent for the tools. */
  keyId?: string;
}

/** One committed change of an order (`order.changed`): placed (`status.from` null) or a status change. */
export interface OrderChange {
  orderId: string;
  occurredAt: string;
  status: FromTo<OrderStatus>;
  /** The order after the change, as getOrderById answers it. */
  order: Order;
  /** The API key's id, when the change came through the API. */
  keyId?: string;
}

/**
 * `change` with its ids (`petId`, `orderId`: canonical decimal text) rendered by `id`, members in the contract's
 * order: the one shape of a record as JSON (change-json.ts) and as a history item (history-store.ts).
 */
export function withIdsAs<T>(change: InventoryChange, id: (decimal: string) => T) {
  const { sequence, petId, occurredAt, reason, quantity, status, orderId, keyId } = change;
  return {
    sequence,
    petId: id(petId),
    occurredAt,
    reason,
    quantity,
    status,
    ...(orderId === undefined ? {} : { orderId: id(orderId) }),
    ...(keyId === undefined ? {} : { keyId }),
  };
}

/** The `source` of every event the service puts on its bus. */
export const eventSource = 'pet-store';

/**
 * An entry that became low (`inventory.low_stock`, docs/contract.md "Inventory semantics": reorder points): its
 * quantity and reorder point after the change, and the `sequence` of the pet's newest change record then (the
 * change that made it low, or the one before a change of the reorder point alone, which has no record).
 */
export interface LowStock {
  petId: string;
  quantity: number;
  reorderPoint: number;
  sequence: number;
}

/**
 * The event types: the bus's `detail-type` and the webhooks' `type`. New types go last: an events feed log's
 * number follows its type's place here (lib/events/event-logs.ts).
 */
export const eventTypes = ['inventory.changed', 'order.changed', 'inventory.low_stock'] as const;

/** An event type of {@link eventTypes}. */
export type EventType = (typeof eventTypes)[number];

/**
 * A change record with its type, as the bus carries it (`detail-type`, `detail`); a low-stock event with its
 * `timestamp` (its data has no time of its own: lib/events/stream-changes.ts `lowStockOf`).
 */
export type ChangeEvent =
  | { type: 'inventory.changed'; data: InventoryChange }
  | { type: 'order.changed'; data: OrderChange }
  | { type: 'inventory.low_stock'; data: LowStock; timestamp: string };

/**
 * The id of a change's event, the same on every publication and delivery attempt (Standard Webhooks
 * `webhook-id`, the receivers' deduplication key): `inventory.<petId>.<sequence>`, `order.<orderId>.<status>`
 * (an order reaches each status at most once: lib/orders/transitions.ts),
 * `inventory_low_stock.<petId>.<sequence>.<reorderPoint>` (the pet's quantity changes only with a record, so
 * these name the whole content: a point set again to the same value without a stock change in between is the
 * same event, docs/architecture.md "Low stock").
 */
export function changeEventId(event: ChangeEvent): string {
  if (event.type === 'inventory.changed') return `inventory.${event.data.petId}.${event.data.sequence}`;
  if (event.type === 'order.changed') return `order.${event.data.orderId}.${event.data.status.to}`;
  const { petId, sequence, reorderPoint } = event.data;
  return `inventory_low_stock.${petId}.${sequence}.${reorderPoint}`;
}

/**
 * An event's `timestamp` (webhooks, the events feed): the record's `occurredAt`; a low-stock event's own, the
 * time of the change that made the entry low in whole seconds (`.000Z`), as the bus's `time` carries it.
 */
export function eventTimestamp(event: ChangeEvent): string {
  return event.type === 'inventory.low_stock' ? event.timestamp : event.data.occurredAt;
}

/** `occurredAt` (RFC 3339 UTC) in whole seconds, as EventBridge's `time` carries it: a low-stock timestamp. */
export function wholeSeconds(occurredAt: string): string {
  const date = new Date(occurredAt);
  date.setUTCMilliseconds(0);
  return date.toISOString();
}

/** Environment variables of the event functions (set by the stack, overridden by the local API). */
export const eventsEnv = {
  /** The EventBridge event bus's name (PutEvents `EventBusName`). */
  busName: 'EVENT_BUS_NAME',
  /**
   * The URL of the SQS queue of webhook deliveries, one message per delivery (endpoint x event): the fast
   * lane, first attempts of enabled endpoints (docs/architecture.md "Events and webhooks").
   */
  deliveryQueueUrl: 'WEBHOOK_DELIVERY_QUEUE_URL',
  /** The URL of the slow lane's delivery queue: retries, and the deliveries of endpoints not enabled. */
  slowLaneQueueUrl: 'WEBHOOK_SLOW_LANE_QUEUE_URL',
  /** The slow lane queue's ARN: the delivery function tells its records (`eventSourceARN`) from the fast lane's. */
  slowLaneQueueArn: 'WEBHOOK_SLOW_LANE_QUEUE_ARN',
  /** Seconds of failed attempts only after which an endpoint is disabled (lib/webhooks/delivery-settings.ts). */
  disableAfterSeconds: 'WEBHOOK_DISABLE_AFTER_SECONDS',
  /** The delays before each retry of a delivery, in seconds, comma-separated (lib/webhooks/delivery-settings.ts). */
  retryDelays: 'WEBHOOK_RETRY_DELAYS',
  /** `public-https` deployed; `local` also allows `http://127.0.0.1` and `http://localhost` (the SSRF guard). */
  urlPolicy: 'WEBHOOK_URL_POLICY',
} as const;
