/**
 * Least privilege of webhook endpoints (docs/contract.md "History and events"): the event types an endpoint can
 * name and the scope a key needs to read each, so that an endpoint delivers only what its key may read.
 * @module
 */
import { scopes as everyScope, type Scope } from '../api.ts';
import { forbidden } from '../http/errors.ts';

/** The scope a key needs to receive each event type an endpoint can name, in the contract's order. */
export const eventTypeScopes = {
  'inventory.changed': 'inventory:read',
  'inventory.low_stock': 'inventory:read',
  'order.changed': 'orders:read',
} as const satisfies Record<string, Scope>;

/** An event type a webhook endpoint can name. */
export type EndpointEventType = keyof typeof eventTypeScopes;

/** Every event type an endpoint can name: `inventory.changed`, `inventory.low_stock`, `order.changed`. */
export const endpointEventTypes = Object.keys(eventTypeScopes) as EndpointEventType[];

/** The event types a key holding `granted` may read, in {@link endpointEventTypes}' order. */
export function readableEventTypes(granted: readonly string[]): EndpointEventType[] {
  return endpointEventTypes.filter((type) => granted.includes(eventTypeScopes[type]));
}

/** The scopes, in the contract's order, that `types` need and `granted` lacks (none: the key reads them all). */
export function missingScopes(types: readonly EndpointEventType[], granted: readonly string[]): Scope[] {
  const needed = new Set<Scope>(types.map((type) => eventTypeScopes[type]));
  return everyScope.filter((scope) => needed.has(scope) && !granted.includes(scope));
}

/** What `types` need, as an operator reads it: `order.changed needs orders:read, ...`. */
function needsOf(types: readonly EndpointEventType[]): string {
  return types.map((type) => `${type} needs ${eventTypeScopes[type]}`).join(', ');
}

/**
 * The event types of a new endpoint of a key holding `granted`: `asked` when the key reads them all, else, when
 * the body named none, every type the key reads (docs/contract.md "History and events": least privilege).
 * @throws HttpError 403 `forbidden` naming the missing scope when the key cannot read an asked type, or any.
 */
export function endpointEventTypesFor(
  asked: readonly EndpointEventType[] | undefined,
  granted: readonly string[],
): EndpointEventType[] {
  const types = asked ?? readableEventTypes(granted);
  if (types.length === 0) {
    throw forbidden(`this API key can read no event type: ${needsOf(endpointEventTypes)}`);
  }
  const missing = missingScopes(types, granted);
  if (missing.length === 0) return [...types];
  const refused = types.filter((type) => missing.includes(eventTypeScopes[type]));
  throw forbidden(`this API key lacks ${missing.join(' and ')}: ${needsOf(refused)}`);
}
