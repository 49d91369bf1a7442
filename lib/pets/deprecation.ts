/** getPetById's `Deprecation` / `Sunset` headers and 410 after the sunset: docs/contract.md "Pets". */
import { HttpError } from '../http/errors.ts';

/** The environment variables carrying the dates. */
export const deprecationEnv = { deprecatedAt: 'DEPRECATED_AT', sunsetAt: 'SUNSET_AT' } as const;

/** The two instants of a deprecated operation. */
export interface DeprecationDates {
  deprecatedAt: Date;
  sunsetAt: Date;
}

/**
 * Reads the dates from their ISO 8601 text.
 * @throws Error at init when a date does not parse or the sunset is not after the deprecation (a deployment fault).
 */
export function deprecationDates(deprecatedAt: string, sunsetAt: string): DeprecationDates {
  const dates = { deprecatedAt: new Date(deprecatedAt), sunsetAt: new Date(sunsetAt) };
  if (Number.isNaN(dates.deprecatedAt.getTime()) || Number.isNaN(dates.sunsetAt.getTime())) {
    throw new Error(
      `${deprecationEnv.deprecatedAt} and ${deprecationEnv.sunsetAt} must be ISO 8601 date-times`,
    );
  }
  if (dates.sunsetAt <= dates.deprecatedAt) throw new Error('the sunset must come after the deprecation');
  return dates;
}

/**
 * The headers of every response: `Deprecation: @<epoch seconds>` (RFC 9745 §2.1, a Structured Field Date)
 * and `Sunset: <IMF-fixdate>` (RFC 8594 §3, an HTTP-date).
 */
export function deprecationHeaders({ deprecatedAt, sunsetAt }: DeprecationDates): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(deprecatedAt.getTime() / 1000)}`,
    Sunset: sunsetAt.toUTCString(),
  };
}

/**
 * 410 `gone` when `now` is at or past the sunset (RFC 8594 §3: the resource is expected to become
 * unresponsive at that time).
 * @throws HttpError 410 `gone`.
 */
export function refuseAfterSunset({ sunsetAt }: DeprecationDates, now: Date, operation: string): void {
  if (now >= sunsetAt) {
    throw new HttpError('gone', `${operation} was retired on ${sunsetAt.toUTCString()}`);
  }
}
