/**
 * The names the webhook tables and delivery messages store where the code names a thing otherwise. Endpoints
 * were called subscriptions when the tables and the queues' messages were made: an endpoint's id is stored as
 * `subscriptionId` (the endpoints and failures tables' partition key, a delivery message's member). A table's key
 * cannot be renamed in place and stored items and queued messages outlive a deploy, so the stored name stays and
 * this module alone spells it (docs/architecture.md "Data layout").
 * @module
 */

/** The stored name of an endpoint's id (the code's `endpointId`). */
export const storedEndpointId = 'subscriptionId';

/** `record` as stored: its `endpointId` under {@link storedEndpointId}, its other members as they are. */
export function toStoredNames<T extends { endpointId: string }>(record: T): Record<string, unknown> {
  const { endpointId, ...rest } = record;
  return { [storedEndpointId]: endpointId, ...rest };
}

/** The id of the endpoint a stored item or message holds (its {@link storedEndpointId}), as text. */
export function storedEndpointIdOf(item: Record<string, unknown>): string {
  return String(item[storedEndpointId]);
}

/** The stored key of the endpoint `endpointId`'s item (endpoints table), or of its part of a failure's key. */
export function endpointKey(endpointId: string): Record<string, string> {
  return { [storedEndpointId]: endpointId };
}

/** The condition that an endpoint's item (or a failure's) exists. */
export const itemExists = `attribute_exists(${storedEndpointId})`;

/** The condition that no item has the key yet (a new endpoint's Put). */
export const itemAbsent = `attribute_not_exists(${storedEndpointId})`;
