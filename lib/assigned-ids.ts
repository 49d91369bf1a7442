/**
 * @module The identifiers the service assigns (addPet without `id`, every order): positive and at most
 * 2^53 - 1, so that every JSON parser with default settings reads them exactly (docs/contract.md "Identifiers";
 * the layout and its collision bound: docs/implementation.md "Assigned ids").
 */
import { randomBytes, randomInt } from 'node:crypto';

/** The largest id the service assigns: 2^53 - 1 (9007199254740991), `Number.MAX_SAFE_INTEGER`. */
export const maxAssignedId = Number.MAX_SAFE_INTEGER;

/** The instant order ids count from: 2026-01-01T00:00:00Z, in milliseconds since the Unix epoch. */
export const orderIdEpoch = Date.UTC(2026, 0, 1);

/** Random bits below an order id's millisecond count: 41 bits of milliseconds remain (about 69 years). */
export const orderIdRandomBits = 12;

/**
 * A new order id: the milliseconds since {@link orderIdEpoch} times 2^12, plus 12 random bits. Positive, at most
 * 2^53 - 1 until 2095-09-07, and ordered by creation time across functions up to their clocks' skew; two orders
 * of the same millisecond take the same id with probability 1/4096, which the order's conditional write detects
 * (lib/orders/store.ts retries with a new id).
 * @param now milliseconds since the Unix epoch (default: the clock)
 * @throws RangeError when `now` is not after {@link orderIdEpoch} or past the last millisecond ids can count
 */
export function newOrderId(now: number = Date.now()): string {
  const elapsed = now - orderIdEpoch;
  if (!Number.isSafeInteger(elapsed) || elapsed < 1 || elapsed >= 2 ** (53 - orderIdRandomBits)) {
    throw new RangeError('the clock is outside the years order ids can count (2026-01-01 to 2095-09-07)');
  }
  return (elapsed * 2 ** orderIdRandomBits + randomInt(2 ** orderIdRandomBits)).toString();
}

/**
 * A new pet id: uniformly random from 1 to 2^53 - 1 (0 drawn becomes 1). With n pets stored, a draw is taken
 * with probability at most n / 2^53, which addPet's conditional write detects (lib/pets/store.ts retries).
 */
export function newPetId(): string {
  const value = randomBytes(8).readBigUInt64BE() >> 11n;
  return (value === 0n ? 1n : value).toString();
}
