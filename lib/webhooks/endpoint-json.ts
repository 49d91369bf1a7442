/**
 * The `WebhookEndpoint` of the API and the `createWebhookEndpoint` body (docs/contract.md "History and events"):
 * validation of the request, JSON of the responses.
 * @module
 */
import { invalidRequest, listedNames, unknownMembers } from '../http/errors.ts';
import type { Endpoint } from './endpoint-store.ts';
import { type EndpointEventType, endpointEventTypes } from './event-access.ts';
import type { EndpointView } from './key-endpoints.ts';

/**
 * A validated createWebhookEndpoint body: the URL (not yet checked by the SSRF guard) and the event types it
 * names, absent when it names none (then the key's readable types: lib/webhooks/event-access.ts).
 */
export interface NewEndpoint {
  url: string;
  events?: EndpointEventType[];
}

/** Longest URL an endpoint may have, in characters (as a Pet's photo URLs, lib/pets/pet.ts). */
export const maxEndpointUrlLength = 2000;

const endpointMembers = ['url', 'events'];
const example = '{"url": "https://example.com/hooks"}';

/**
 * Validates a parsed createWebhookEndpoint body: an object with `url` (a string of 1 to 2000 characters) and
 * optionally `events` (1 to 3 event types, each at most once); no other member.
 * @throws HttpError 400 `invalid_request` naming the first problem found.
 */
export function parseNewEndpoint(body: unknown): NewEndpoint {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest(`request body must be a JSON object such as ${example}`);
  }
  const record = body as Record<string, unknown>;
  const unknown = unknownMembers(record, endpointMembers);
  if (unknown)
    throw invalidRequest(`a webhook endpoint may only contain url, events; not allowed: ${unknown}`);
  const { url, events } = record;
  if (typeof url !== 'string' || url.length === 0 || url.length > maxEndpointUrlLength) {
    throw invalidRequest(
      `url must be a string of 1 to ${maxEndpointUrlLength} characters such as https://example.com/hooks`,
    );
  }
  if (events === undefined) return { url };
  const types = `the types are ${endpointEventTypes.join(', ')}`;
  if (!Array.isArray(events) || events.length === 0) {
    throw invalidRequest(`events must be a non-empty array of event types: ${types}`);
  }
  const strings = events.filter((type): type is string => typeof type === 'string');
  const unknownTypes = strings.filter((type) => !(endpointEventTypes as readonly string[]).includes(type));
  if (strings.length < events.length || unknownTypes.length > 0) {
    const named = unknownTypes.length > 0 ? `: ${listedNames(unknownTypes)}` : '';
    throw invalidRequest(`events holds what is not an event type${named}; ${types}`);
  }
  if (new Set(strings).size < strings.length) throw invalidRequest('events lists an event type twice');
  return { url, events: strings as EndpointEventType[] };
}

/** An endpoint id as the service makes them (lib/webhooks/endpoint-store.ts `newEndpointId`). */
const endpointIdFormat = /^ws_[A-Za-z0-9_-]{16}$/;

/**
 * The endpointId of a request path (already percent-decoded once).
 * @throws HttpError 400 `invalid_request` when it is not `ws_` and 16 base64url characters.
 */
export function parseEndpointId(text: string | undefined): string {
  if (text === undefined || !endpointIdFormat.test(text)) {
    throw invalidRequest(
      'endpointId must be ws_ followed by 16 letters, digits, - or _ (as createWebhookEndpoint answers it)',
    );
  }
  return text;
}

/** The JSON value of an endpoint: `id`, `url`, `events`, `state`, `createdAt`, and when set `failingSince`, `disabledAt`. */
export function endpointValue(endpoint: EndpointView) {
  return {
    id: endpoint.endpointId,
    url: endpoint.url,
    events: endpoint.events,
    state: endpoint.state,
    createdAt: endpoint.createdAt,
    ...(endpoint.failingSince === undefined ? {} : { failingSince: endpoint.failingSince }),
    ...(endpoint.disabledAt === undefined ? {} : { disabledAt: endpoint.disabledAt }),
  };
}

/** The JSON text of a new endpoint: {@link endpointValue} and its `secret`, shown this once. */
export function createdEndpointJson(endpoint: Endpoint): string {
  return JSON.stringify({ ...endpointValue(endpoint), secret: endpoint.secret });
}
