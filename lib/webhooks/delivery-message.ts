/**
 * A message of the webhook delivery queue: one event for one subscription (docs/contract.md "History and
 * events"). The fan-out sends it, the redrive of the webhook tool sends it again, the delivery reads it.
 * @module
 */
import { type EventType, eventTypes } from '../events/changes.ts';

/** The body of a delivery message, as JSON. */
export interface DeliveryMessage {
  subscriptionId: string;
  /** The event's id (lib/events/changes.ts `changeEventId`): the `webhook-id` of every attempt. */
  eventId: string;
  type: EventType;
  /** When the change occurred (the record's `occurredAt`), RFC 3339 UTC with milliseconds. */
  timestamp: string;
  /** The change record. */
  data: unknown;
}

/** The JSON body of a delivery message. */
export function deliveryMessageBody(message: DeliveryMessage): string {
  const { subscriptionId, eventId, type, timestamp, data } = message;
  return JSON.stringify({ subscriptionId, eventId, type, timestamp, data });
}

/**
 * The delivery message in `body`.
 * @throws Error when it is not JSON of that shape (a message no attempt can deliver).
 */
export function parseDeliveryMessage(body: string): DeliveryMessage {
  const value = JSON.parse(body) as Partial<DeliveryMessage> | null;
  const text = (name: keyof DeliveryMessage) => typeof value?.[name] === 'string';
  if (
    !text('subscriptionId') ||
    !text('eventId') ||
    !text('timestamp') ||
    !(eventTypes as readonly unknown[]).includes(value?.type) ||
    value?.data === undefined
  ) {
    throw new Error('not a webhook delivery message');
  }
  return value as DeliveryMessage;
}

/** The request body POSTed to a subscriber: `{"type","timestamp","data"}` (Standard Webhooks payload). */
export function webhookPayload(message: Pick<DeliveryMessage, 'type' | 'timestamp' | 'data'>): string {
  return JSON.stringify({ type: message.type, timestamp: message.timestamp, data: message.data });
}
