/**
 * Middlewares that turn a request body into parsed JSON, by the rules of docs/contract.md "InventoryUpdate":
 * a body is required; `Content-Type` must be `application/json` or an `application/*+json` type (parameters
 * allowed, any header and value case); base64 bodies (`isBase64Encoded`) are decoded; malformed JSON and
 * `__proto__` keys are 400.
 *
 * After them `event.body` holds the parsed JSON value (not yet validated: see `inventory-update.ts`).
 * Their errors are rendered as 400 `invalid_request` by `error-middleware.ts`.
 */
import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { invalidRequest } from './errors.ts';

/** Rejects a missing or empty body with 400 before any content-type or JSON check. */
function requireBody(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      if (event.body == null || event.body === '') {
        throw invalidRequest('request body is required: a JSON object such as {"quantity": 5}');
      }
    },
  };
}

/**
 * A JSON media type (RFC 9110 §8.3.1, RFC 6838 §4.2 and §4.2.8): `application/json` or
 * `application/<name>+json`, then optional whitespace and parameters. middy's own check is stricter than the
 * RFCs (no whitespace before `;`, no `_` or `!#$&^` in names), so it is turned off in favour of this one.
 */
const jsonMediaType = /^application\/(?:[a-z0-9][a-z0-9!#$&^_.+-]*\+)?json[ \t]*(?:;.*)?$/i;

/**
 * The value of the request's `Content-Type` header, whatever the case of its name (HTTP header names are
 * case-insensitive; API Gateway passes them as the client sent them). Looked up directly rather than by
 * normalising every header of every request (`@middy/http-header-normalizer`), the one header this function
 * reads (its handler never looks at the others).
 */
function contentType(headers: APIGatewayProxyEvent['headers'] | null | undefined): string | undefined {
  let value: string | undefined;
  for (const name in headers) {
    // The last one wins when a client sent the name twice in different cases, as with the normaliser.
    if (name.length === 12 && name.toLowerCase() === 'content-type') value = headers[name];
  }
  return value;
}

/** Rejects a body whose `Content-Type` is missing or not JSON. */
function requireJsonContentType(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      if (!jsonMediaType.test(contentType(event.headers)?.trim() ?? '')) {
        throw invalidRequest('Content-Type must be application/json');
      }
    },
  };
}

/** The middlewares, in order: body presence, content type, JSON parsing. */
export function jsonBody(): MiddlewareObj<APIGatewayProxyEvent>[] {
  return [
    requireBody(),
    requireJsonContentType(),
    httpJsonBodyParser({ disableContentTypeCheck: true }),
  ] as MiddlewareObj<APIGatewayProxyEvent>[];
}
