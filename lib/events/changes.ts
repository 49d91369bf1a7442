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

/** The event types: the bus's `detail-type` and the webhooks' `type`. */
export const eventTypes = ['inventory.changed', 'order.changed'] as const;

/** An event type of {@link eventTypes}. */
export type EventType = (typeof eventTypes)[number];

/** A change record with its type, as the bus carries it (`detail-type`, `detail`). */
export type ChangeEvent =
  | { type: 'inventory.changed'; data: InventoryChange }
  | { type: 'order.changed'; data: OrderChange };

/**
 * The id of a change's event, the same on every publication and delivery attempt (Standard Webhooks
 * `webhook-id`, the receivers' deduplication key): `inventory.<petId>.<sequence>`, `order.<orderId>.<status>`
 * (an order reaches each status at most once: lib/orders/transitions.ts).
 */
export function changeEventId(event: ChangeEvent): string {
  return event.type === 'inventory.changed'
    ? `inventory.${event.data.petId}.${event.data.sequence}`
    : `order.${event.data.orderId}.${event.data.status.to}`;
}

/** Environment variables of the event functions (set by the stack, overridden by the local API). */
export const eventsEnv = {
  /** The EventBridge event bus's name (PutEvents `EventBusName`). */
  busName: 'EVENT_BUS_NAME',
  /**
   * The URL of the SQS queue of webhook deliveries, one message per delivery (subscription x event): the fast
   * lane, first attempts of enabled subscriptions (docs/architecture.md "Events and webhooks").
   */
  deliveryQueueUrl: 'WEBHOOK_DELIVERY_QUEUE_URL',
  /** The URL of the slow lane's delivery queue: retries, and the deliveries of subscriptions not enabled. */
  slowLaneQueueUrl: 'WEBHOOK_SLOW_LANE_QUEUE_URL',
  /** The slow lane queue's ARN: the delivery function tells its records (`eventSourceARN`) from the fast lane's. */
  slowLaneQueueArn: 'WEBHOOK_SLOW_LANE_QUEUE_ARN',
  /** Seconds of failed attempts only after which a subscription is disabled (lib/webhooks/breaker.ts). */
  disableAfterSeconds: 'WEBHOOK_DISABLE_AFTER_SECONDS',
  /** The delays before each retry of a delivery, in seconds, comma-separated (lib/webhooks: the schedule). */
  retryDelays: 'WEBHOOK_RETRY_DELAYS',
  /** `public-https` deployed; `local` also allows `http://127.0.0.1` and `http://localhost` (the SSRF guard). */
  urlPolicy: 'WEBHOOK_URL_POLICY',
} as const;
