/**
 * Middlewares that turn a request body into parsed JSON, by the rules of contract.md "InventoryUpdate":
 * a body is required; `Content-Type` must be `application/json` or a `+json` type (parameters allowed, any
 * header case); base64 bodies (`isBase64Encoded`) are decoded; malformed JSON and `__proto__` keys are 400.
 *
 * After them `event.body` holds the parsed JSON value (not yet validated: see `inventory-update.ts`).
 * Their errors are rendered as 400 `invalid_request` by `error-middleware.ts`.
 */
import type { MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
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

/** The three middlewares, in order: header-case normalisation, body presence, JSON parsing. */
export function jsonBody(): MiddlewareObj<APIGatewayProxyEvent>[] {
  return [
    httpHeaderNormalizer(),
    requireBody(),
    httpJsonBodyParser(),
  ] as MiddlewareObj<APIGatewayProxyEvent>[];
}
