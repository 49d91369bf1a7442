/**
 * The fan-out of a change event to its webhook endpoints (docs/contract.md "History and events"): one
 * delivery message per endpoint whose `events` include the event's type, in the lane of its state
 * (docs/architecture.md "Events and webhooks").
 * @module
 */
import { type ChangeEvent, changeEventId, eventTimestamp, wholeSeconds } from '../events/changes.ts';
import type { DeliveryMessage } from './delivery-message.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import type { EndpointRoute } from './endpoint-store.ts';
import type { EndpointEventType } from './event-access.ts';

/** The two delivery queues: enabled endpoints' deliveries go to the fast lane, the others' to the slow lane. */
export interface DeliveryLanes {
  fast: Pick<DeliveryQueue, 'send'>;
  slow: Pick<DeliveryQueue, 'send'>;
}

/**
 * True when `endpoint` existed when the change of `event` was committed (docs/contract.md "History and
 * events": an endpoint receives the events of changes committed after it was created): the event's time (its
 * record's `occurredAt`, a low-stock event's bus `time`) not before the endpoint's `createdAt`, compared in
 * whole seconds for a low-stock event, whose time has no milliseconds. An endpoint stored without `createdAt`
 * takes every event.
 */
export function createdBefore(endpoint: Pick<EndpointRoute, 'createdAt'>, event: ChangeEvent): boolean {
  const { createdAt } = endpoint;
  if (createdAt === undefined) return true;
  const since = event.type === 'inventory.low_stock' ? wholeSeconds(createdAt) : createdAt;
  return Date.parse(eventTimestamp(event)) >= Date.parse(since);
}

/**
 * Sends one delivery message per endpoint of `endpoints` that takes the event's type and existed when
 * its change was committed ({@link createdBefore}): `eventId` from
 * `changeEventId`, `timestamp` its `eventTimestamp`; to the fast lane when the endpoint is `enabled`,
 * else to the slow lane.
 * @throws Error when a queue refuses any (the invocation is retried: a subscriber may get an event twice).
 */
export async function fanOut(
  event: ChangeEvent,
  endpoints: readonly EndpointRoute[],
  lanes: DeliveryLanes,
): Promise<void> {
  const eventId = changeEventId(event);
  const taking = endpoints.filter(
    (endpoint) => endpoint.events.includes(event.type as EndpointEventType) && createdBefore(endpoint, event),
  );
  const messageOf = (endpoint: EndpointRoute): DeliveryMessage => ({
    endpointId: endpoint.endpointId,
    eventId,
    type: event.type,
    timestamp: eventTimestamp(event),
    data: event.data,
  });
  const fast = taking.filter((endpoint) => endpoint.state === 'enabled').map(messageOf);
  const slow = taking.filter((endpoint) => endpoint.state !== 'enabled').map(messageOf);
  await Promise.all([fast.length > 0 && lanes.fast.send(fast), slow.length > 0 && lanes.slow.send(slow)]);
}
