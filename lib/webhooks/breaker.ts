/**
 * The breaker of failing endpoints (docs/contract.md "History and events": a subscriber that has failed every
 * attempt for 5 days is disabled; Svix's rule, https://docs.svix.com/retries "Disabling failing endpoints").
 * The delivery's decision asks {@link breakerTrips}; the disable itself is one conditional write
 * (lib/webhooks/endpoint-health.ts `disable`).
 * @module
 */

/** Seconds of failed attempts only after which an endpoint is disabled: 5 days. */
export const defaultDisableAfterSeconds = 5 * 86_400;

/**
 * Whether a failed attempt at `now` disables its endpoint: it has failed every attempt since `failingSince`
 * (RFC 3339; undefined while its last attempt was delivered) for `disableAfterSeconds` or more.
 */
export function breakerTrips(
  failingSince: string | undefined,
  now: Date,
  disableAfterSeconds: number,
): boolean {
  return failingSince !== undefined && now.getTime() - Date.parse(failingSince) >= disableAfterSeconds * 1000;
}
