/**
 * A webhook endpoint (docs/contract.md "History and events"): where to POST which event types, signed with which
 * secret, and its delivery state; its new ids and secrets. Stored by lib/webhooks/endpoint-store.ts.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { EndpointEventType } from './event-access.ts';
import type { KeyRefusal } from './owner-access.ts';

/**
 * Where an endpoint's deliveries go (docs/architecture.md "Events and webhooks"): `enabled`, the fast lane;
 * `isolated`, the slow lane (its last attempt failed or outlasted the fast lane's limit); `disabled`, no attempt
 * (the breaker, the tool or its key's check disabled it, {@link DisabledReason}: kept as failures until enabled). A
 * endpoint stored before states existed is `enabled`.
 */
export type EndpointState = 'enabled' | 'isolated' | 'disabled';

/**
 * Why an endpoint is `disabled`: `failing`, the breaker (every attempt failed for its period); `operator`, the
 * webhook tool's `disable`; for an API key's endpoint, `key_revoked`, `key_expired` or `scope_missing`, its key no
 * longer reads what it delivers (lib/webhooks/owner-access.ts). Absent on items disabled before reasons existed.
 */
export type DisabledReason = 'failing' | 'operator' | KeyRefusal;

/** An endpoint: where to POST which event types, signed with which secret. Times are RFC 3339 UTC. */
export interface Endpoint {
  /** `ws_` + 16 base64url characters (96 random bits). */
  endpointId: string;
  url: string;
  events: EndpointEventType[];
  /** `whsec_` + base64 of 24 random bytes; shown to the operator once, never listed. */
  secret: string;
  /** The secret before the last rotateWebhookSecret, still signing until {@link previousSecretExpiresAt}. */
  previousSecret?: string;
  /** When {@link previousSecret} stops signing (RFC 3339 UTC): 24 hours after the rotation. */
  previousSecretExpiresAt?: string;
  createdAt: string;
  state: EndpointState;
  /** The first failed attempt since the last delivered one; absent while the last attempt was delivered. */
  failingSince?: string;
  /** When the breaker, the tool or its key's check disabled it (state `disabled`). */
  disabledAt?: string;
  /** Why it is disabled (state `disabled`). */
  disabledReason?: DisabledReason;
  /**
   * The API key that created it through the API (`createWebhookEndpoint`): the first key id of its rotation
   * chain, so a key made by `rotate` keeps it; absent for the tool's endpoints (lib/webhooks/key-endpoints.ts).
   */
  ownerKeyId?: string;
}

/** What the fan-out reads of an endpoint: never its secret (lib/webhooks/fan-out.ts). */
export type EndpointRoute = Pick<Endpoint, 'endpointId' | 'events' | 'state' | 'ownerKeyId'> &
  Partial<Pick<Endpoint, 'createdAt'>>;

/** An endpoint as the API shows it after its creation: an endpoint without its secret. */
export type EndpointView = Omit<Endpoint, 'secret'>;

/** Random bytes in a signing secret (Standard Webhooks: between 24 and 64). */
const secretBytes = 24;

/**
 * A new signing secret: `whsec_` + base64 of 24 random bytes, the form Standard Webhooks libraries read. Here,
 * not beside the signing, so that the fan-out's bundle does not carry the signing library.
 */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(secretBytes).toString('base64')}`;
}

/** A new endpoint id: `ws_` + base64url of 12 random bytes. */
export function newEndpointId(): string {
  return `ws_${randomBytes(12).toString('base64url')}`;
}

/** A new `enabled` endpoint to `events` at `url`, created at `now`, with a new id and secret; `ownerKeyId` when given. */
export function newEndpoint(
  url: string,
  events: readonly EndpointEventType[],
  now: Date,
  ownerKeyId?: string,
): Endpoint {
  return {
    endpointId: newEndpointId(),
    url,
    events: [...events],
    secret: newSigningSecret(),
    createdAt: now.toISOString(),
    state: 'enabled',
    ...(ownerKeyId === undefined ? {} : { ownerKeyId }),
  };
}

/**
 * The secrets a delivery at `now` is signed with: the endpoint's secret, then its previous one while that
 * has not expired (docs/contract.md "History and events": rotateWebhookSecret).
 */
export function signingSecrets(
  endpoint: Pick<Endpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  const { secret, previousSecret, previousSecretExpiresAt } = endpoint;
  const overlapping =
    previousSecret !== undefined &&
    previousSecretExpiresAt !== undefined &&
    Date.parse(previousSecretExpiresAt) > now.getTime();
  return overlapping ? [secret, previousSecret] : [secret];
}
