/**
 * The fan-out of a change event to its webhook subscriptions (docs/contract.md "History and events"): one
 * delivery message per subscription whose `events` include the event's type.
 * @module
 */
import { type ChangeEvent, changeEventId, type EventType } from '../events/changes.ts';
import type { DeliveryMessage } from './delivery-message.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { Subscription } from './subscriptions.ts';

/**
 * Sends one delivery message per subscription of `subscriptions` that takes the event's type: `eventId` from
 * `changeEventId`, `timestamp` the record's `occurredAt`.
 * @returns the messages sent.
 * @throws Error when the queue refuses any (the invocation is retried: a subscriber may get an event twice).
 */
export async function fanOut(
  event: ChangeEvent,
  subscriptions: readonly Subscription[],
  queue: DeliveryQueue,
): Promise<DeliveryMessage[]> {
  const eventId = changeEventId(event);
  const messages = subscriptions
    .filter((subscription) => subscription.events.includes(event.type as EventType))
    .map((subscription) => ({
      subscriptionId: subscription.subscriptionId,
      eventId,
      type: event.type,
      timestamp: event.data.occurredAt,
      data: event.data,
    }));
  await queue.send(messages);
  return messages;
}
