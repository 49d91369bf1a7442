/**
 * A message of the webhook delivery queue: one event for one endpoint (docs/contract.md "History and
 * events"). The fan-out sends it, the redrive of the webhook tool sends it again, the delivery reads it.
 * @module
 */
import { changeValue, exactIds } from '../events/change-json.ts';
import {
  type ChangeEvent,
  type EventType,
  eventTypes,
  type InventoryChange,
  type LowStock,
  type OrderChange,
} from '../events/changes.ts';
import { storedEndpointId, toStoredNames } from './stored-names.ts';

/**
 * The type of a test event (sendTestWebhook): delivered to one endpoint alone, never on the bus nor in the events
 * feed (docs/contract.md "History and events").
 */
export const testEventType = 'webhook.test';

/** The data of a test event: the endpoint it was sent to. */
export interface TestEventData {
  endpointId: string;
}

/** The type of a delivery: an event type of the feed, or {@link testEventType}. */
export type DeliveryType = EventType | typeof testEventType;

/** A delivery message (its JSON body names `endpointId` as stored: lib/webhooks/stored-names.ts). */
export interface DeliveryMessage {
  endpointId: string;
  /** The event's id (lib/events/changes.ts `changeEventId`): the `webhook-id` of every attempt. */
  eventId: string;
  type: DeliveryType;
  /** When the change occurred (lib/events/changes.ts `eventTimestamp`), RFC 3339 UTC with milliseconds. */
  timestamp: string;
  /**
   * The change record, or the low-stock data (written as its exact JSON: lib/events/change-json.ts), or a test
   * event's data.
   */
  data: InventoryChange | OrderChange | LowStock | TestEventData;
  /**
   * Attempts made before the message entered its queue: 1 for a message moved to the slow lane after a failed
   * first attempt, absent (0) otherwise (docs/architecture.md "Events and webhooks").
   */
  priorAttempts?: number;
  /**
   * When its next attempt is due (RFC 3339 UTC), for a delay longer than the queue can hide a message
   * (lib/webhooks/delivery-decision.ts): received earlier, the message is sent on to wait; absent otherwise.
   */
  notBefore?: string;
}

/** The JSON value of a message's data: its record (ids exact: `JSON.rawJSON`), or a test event's `{"endpointId"}`. */
function deliveryDataValue(message: Pick<DeliveryMessage, 'type' | 'data'>): unknown {
  if (message.type === testEventType) {
    return { endpointId: (message.data as TestEventData).endpointId };
  }
  return changeValue({ type: message.type, data: message.data } as ChangeEvent);
}

/** The exact JSON text of a message's data: its record, or a test event's `{"endpointId"}`. */
export function deliveryDataJson(message: Pick<DeliveryMessage, 'type' | 'data'>): string {
  return JSON.stringify(deliveryDataValue(message));
}

/** The JSON body of a delivery message. */
export function deliveryMessageBody(message: DeliveryMessage): string {
  const { endpointId, eventId, type, timestamp, priorAttempts, notBefore } = message;
  const data = deliveryDataValue(message);
  return JSON.stringify({
    ...toStoredNames({ endpointId }),
    eventId,
    type,
    timestamp,
    priorAttempts,
    notBefore,
    data,
  });
}

/**
 * The delivery message in `body`.
 * @throws Error when it is not JSON of that shape (a message no attempt can deliver).
 */
export function parseDeliveryMessage(body: string): DeliveryMessage {
  const { [storedEndpointId]: endpointId, ...members } = (JSON.parse(body, exactIds) ?? {}) as Record<
    string,
    unknown
  >;
  const value = { ...members, endpointId } as Partial<DeliveryMessage>;
  const text = (name: keyof DeliveryMessage) => typeof value[name] === 'string';
  if (
    !text('endpointId') ||
    !text('eventId') ||
    !text('timestamp') ||
    !([...eventTypes, testEventType] as readonly unknown[]).includes(value.type) ||
    value.data === undefined ||
    (value.priorAttempts !== undefined &&
      !(Number.isInteger(value.priorAttempts) && value.priorAttempts >= 0)) ||
    (value.notBefore !== undefined &&
      !(typeof value.notBefore === 'string' && !Number.isNaN(Date.parse(value.notBefore))))
  ) {
    throw new Error('not a webhook delivery message');
  }
  return value as DeliveryMessage;
}

/** The request body POSTed to a subscriber: `{"type","timestamp","data"}` (Standard Webhooks payload). */
export function webhookPayload(message: Pick<DeliveryMessage, 'type' | 'timestamp' | 'data'>): string {
  return JSON.stringify({
    type: message.type,
    timestamp: message.timestamp,
    data: deliveryDataValue(message),
  });
}
