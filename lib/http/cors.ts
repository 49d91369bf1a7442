/** CORS headers on the functions' own responses for allowed origins: docs/operating.md "CORS". */
import type { MiddlewareObj } from '@middy/core';
import httpCors from '@middy/http-cors';

/** The variable carrying the allowed origins, comma-separated; absent or empty: no CORS headers at all. */
export const corsOriginsEnv = 'CORS_ALLOWED_ORIGINS';

/** Request headers a browser may send cross-origin (the preflight's `Access-Control-Allow-Headers`). */
export const corsRequestHeaders = ['Authorization', 'Content-Type', 'If-Match', 'Idempotency-Key'] as const;

/** Response headers of the contract a browser script may read besides the safelisted ones. */
export const corsExposedHeaders = ['ETag', 'Link', 'Location', 'Deprecation', 'Sunset'] as const;

/** How long a browser may cache a preflight answer, in seconds. */
export const corsMaxAgeSeconds = 600;

/** The allowed origins of {@link corsOriginsEnv}: `[]` when absent or empty. */
export function corsOrigins(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[corsOriginsEnv] ?? '').split(',').filter((origin) => origin !== '');
}

/**
 * The middleware adding `Access-Control-Allow-Origin` (the request's `Origin` when it is allowed, else none),
 * `Access-Control-Expose-Headers` and, when the answer depends on the origin, `Vary: Origin` to every response,
 * errors included; undefined when no origin is allowed.
 */
export function corsMiddleware(origins: readonly string[]): MiddlewareObj | undefined {
  if (origins.length === 0) return undefined;
  return httpCors({ origins: [...origins], exposeHeaders: corsExposedHeaders.join(', ') });
}
