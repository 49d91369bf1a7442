/** Request body to parsed JSON: docs/contract.md "InventoryUpdate" and "Integers in request bodies". */
import type { MiddlewareObj } from '@middy/core';
import { decodeBody } from '@middy/util';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { exactIntegers, InexactNumber } from '../json-integers.ts';
import { scanMembers } from '../json-members.ts';
import { HttpError, invalidRequest, listedNames } from './errors.ts';

/** Rejects a missing or empty body with 400 before any content-type or JSON check; `example` shows one. */
function requireBody(example: string): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      if (event.body == null || event.body === '') {
        throw invalidRequest(`request body is required: a JSON object such as ${example}`);
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
 * The request's `Content-Type`, whatever the case of its name (API Gateway passes names as sent): looked up
 * among the map's own members (names are data: docs/contract.md "Bounded cost, clean shutdown") rather than
 * normalising every header (`@middy/http-header-normalizer`).
 */
function contentType(headers: APIGatewayProxyEvent['headers'] | null | undefined): string | undefined {
  if (!headers) return undefined;
  let value: string | undefined;
  for (const name of Object.keys(headers)) {
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

/**
 * The reviver of request bodies: refuses the keys that could pollute a prototype (as middy's
 * `jsonParseProtectProto`), then {@link exactIntegers}.
 * @throws HttpError 400 naming a `__proto__` member, or a `constructor` member holding a `prototype`.
 */
function requestReviver(key: string, value: unknown, context?: { source?: string }): unknown {
  if (key === '__proto__' || (key === 'constructor' && value && Object.hasOwn(value, 'prototype'))) {
    throw invalidRequest(`request body member ${JSON.stringify(key)} is not allowed`);
  }
  return exactIntegers(key, value, context);
}

/**
 * Nesting beyond which a body is parsed without the reviver: deeper than any valid body (a Pet's tags are three
 * levels), and far below the depth at which the reviver's recursion would exhaust the stack.
 */
const maxReviverDepth = 64;

/**
 * The JSON value of a body too deep for the reviver (never a valid one), each number among its top-level
 * members an `InexactNumber`, so that validation still names its members.
 */
function parseDeepJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [
      name,
      typeof member === 'number' ? new InexactNumber(String(member)) : member,
    ]),
  );
}

/**
 * The JSON value of `text`, by {@link requestReviver} (or {@link parseDeepJson} when nested deeper than
 * {@link maxReviverDepth}), in time linear in its length: one scan for names twice in an object
 * (lib/json-members.ts), then one parse.
 * @throws SyntaxError when `text` is not JSON; HttpError 400 from the reviver, or naming a member that appears
 *   twice in one object (docs/contract.md "InventoryUpdate", RFC 7493 §2.3).
 */
function parseRequestJson(text: string): unknown {
  const scan = scanMembers(text);
  if ('duplicate' in scan) {
    JSON.parse(text); // A text that is not JSON is refused as such, whatever the scan found in it.
    throw invalidRequest(`request body member ${listedNames([scan.duplicate])} appears twice in one object`);
  }
  return scan.depth > maxReviverDepth ? parseDeepJson(text) : JSON.parse(text, requestReviver);
}

/**
 * Parses the body with {@link parseRequestJson}. Not `@middy/http-json-body-parser`: its `reviver` option is
 * called without the source-text `context` (middy 7.9), which the integer rule needs.
 */
function parseJson(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      try {
        // requireBody() ran first: the body is a non-empty string. From here on it holds the parsed value,
        // which the proxy event's type cannot express (as with middy's own parser).
        event.body = parseRequestJson(decodeBody(event.body, event.isBase64Encoded) as string) as string;
      } catch (error) {
        if (error instanceof HttpError) throw error;
        throw invalidRequest('request body must be valid JSON');
      }
    },
  };
}

/**
 * The middlewares, in order: body presence (its 400 message shows `example`, by default an InventoryUpdate),
 * content type, JSON parsing (numbers as exact safe integers or `InexactNumber`s, lib/json-integers.ts).
 */
export function jsonBody(options: { example?: string } = {}): MiddlewareObj<APIGatewayProxyEvent>[] {
  return [requireBody(options.example ?? '{"quantity": 5}'), requireJsonContentType(), parseJson()];
}
