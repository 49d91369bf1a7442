/**
 * The fan-out of a change event to its webhook subscriptions (docs/contract.md "History and events"): one
 * delivery message per subscription whose `events` include the event's type, in the lane of its state
 * (docs/architecture.md "Events and webhooks").
 * @module
 */
import { type ChangeEvent, changeEventId, eventTimestamp, wholeSeconds } from '../events/changes.ts';
import type { DeliveryMessage } from './delivery-message.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { EndpointEventType } from './event-access.ts';
import type { SubscriptionRoute } from './subscriptions.ts';

/** The two delivery queues: enabled subscriptions' deliveries go to the fast lane, the others' to the slow lane. */
export interface DeliveryLanes {
  fast: Pick<DeliveryQueue, 'send'>;
  slow: Pick<DeliveryQueue, 'send'>;
}

/**
 * True when `subscription` existed when the change of `event` was committed (docs/contract.md "History and
 * events": an endpoint receives the events of changes committed after it was created): the event's time (its
 * record's `occurredAt`, a low-stock event's bus `time`) not before the subscription's `createdAt`, compared in
 * whole seconds for a low-stock event, whose time has no milliseconds. A subscription stored without `createdAt`
 * takes every event.
 */
export function createdBefore(
  subscription: Pick<SubscriptionRoute, 'createdAt'>,
  event: ChangeEvent,
): boolean {
  const { createdAt } = subscription;
  if (createdAt === undefined) return true;
  const since = event.type === 'inventory.low_stock' ? wholeSeconds(createdAt) : createdAt;
  return Date.parse(eventTimestamp(event)) >= Date.parse(since);
}

/**
 * Sends one delivery message per subscription of `subscriptions` that takes the event's type and existed when
 * its change was committed ({@link createdBefore}): `eventId` from
 * `changeEventId`, `timestamp` its `eventTimestamp`; to the fast lane when the subscription is `enabled`,
 * else to the slow lane.
 * @throws Error when a queue refuses any (the invocation is retried: a subscriber may get an event twice).
 */
export async function fanOut(
  event: ChangeEvent,
  subscriptions: readonly SubscriptionRoute[],
  lanes: DeliveryLanes,
): Promise<void> {
  const eventId = changeEventId(event);
  const taking = subscriptions.filter(
    (subscription) =>
      subscription.events.includes(event.type as EndpointEventType) && createdBefore(subscription, event),
  );
  const messageOf = (subscription: SubscriptionRoute): DeliveryMessage => ({
    subscriptionId: subscription.subscriptionId,
    eventId,
    type: event.type,
    timestamp: eventTimestamp(event),
    data: event.data,
  });
  const fast = taking.filter((subscription) => subscription.state === 'enabled').map(messageOf);
  const slow = taking.filter((subscription) => subscription.state !== 'enabled').map(messageOf);
  await Promise.all([fast.length > 0 && lanes.fast.send(fast), slow.length > 0 && lanes.slow.send(slow)]);
}
