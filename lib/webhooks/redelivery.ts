/**
 * redeliverWebhook (docs/contract.md "History and events": what an endpoint's owner sees and steers): its request
 * body, and the delivery message that sends an event of the events feed to an endpoint again, with the fan-out's
 * id, type, timestamp and data, so that the body is the same byte for byte (docs/architecture.md "Redelivery").
 * @module
 */
import { exactIds } from '../events/change-json.ts';
import type { ChangeEvent } from '../events/changes.ts';
import type { FeedEvent } from '../events/event-feed.ts';
import { isEventId } from '../events/event-query.ts';
import { invalidRequest, unknownMembers } from '../http/errors.ts';
import type { DeliveryMessage } from './delivery-message.ts';
import { readableEventTypes } from './event-access.ts';
import { createdBefore } from './fan-out.ts';
import type { OwnedEndpoint } from './owned-endpoint.ts';

/** A redeliverWebhook body, as the 400 messages show it. */
export const redeliveryExample = '{"eventId": "inventory.7532043913479288511.1"}';

const redeliveryMembers = ['eventId'];

/**
 * The `eventId` of a parsed redeliverWebhook body: an object whose only member `eventId` is an event id the
 * service writes (lib/events/changes.ts `changeEventId`; a test event's id is not one: it is never in the feed).
 * @throws HttpError 400 `invalid_request` naming the first problem found.
 */
export function parseRedelivery(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest(`request body must be a JSON object such as ${redeliveryExample}`);
  }
  const record = body as Record<string, unknown>;
  const unknown = unknownMembers(record, redeliveryMembers);
  if (unknown) throw invalidRequest(`a redelivery may only contain eventId; not allowed: ${unknown}`);
  const { eventId } = record;
  if (typeof eventId !== 'string' || !isEventId(eventId)) {
    throw invalidRequest(
      'eventId must be the id of an event of the events list: inventory.<petId>.<sequence>, order.<orderId>.<status> or inventory_low_stock.<petId>.<sequence>.<reorderPoint> (a test event is not redelivered: send another)',
    );
  }
  return eventId;
}

/**
 * The delivery of `event` to the endpoint `endpointId` again, or undefined when the endpoint was never sent it:
 * the fan-out's rule (it takes the event's type and existed when the change was committed: lib/webhooks/fan-out.ts
 * `createdBefore`) and least privilege (a key holding `granted` reads the type: lib/webhooks/event-access.ts).
 * The data is the feed's exact JSON text read with its ids digit for digit, which the delivery writes back as
 * the same text (lib/events/change-json.ts `changeJson`).
 */
export function redeliveryOf(
  endpointId: string,
  endpoint: OwnedEndpoint,
  event: FeedEvent,
  granted: readonly string[],
): DeliveryMessage | undefined {
  const { id, type, timestamp } = event;
  const data = JSON.parse(event.data, exactIds) as ChangeEvent['data'];
  const change = { type, data, timestamp } as ChangeEvent;
  const takes =
    (endpoint.events as readonly string[]).includes(type) &&
    (readableEventTypes(granted) as readonly string[]).includes(type) &&
    createdBefore(endpoint, change);
  return takes ? { endpointId: endpointId, eventId: id, type, timestamp, data } : undefined;
}
