/** Path and query parameters as API Gateway delivers them: local-aws/behaviour.md E1-E3. */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Operation } from '../api.ts';
import { invalidRequest, listedNames } from './errors.ts';

/**
 * Decodes each path parameter once (RFC 3986 §2.1 percent-decoding, as UTF-8): `%31%32` becomes `12`.
 * @throws HttpError 400 `invalid_request` naming a parameter that is not valid percent-encoded UTF-8.
 */
export function decodePathParameters(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: ({ event }) => {
      const parameters = event.pathParameters;
      if (!parameters) return;
      const decoded: Record<string, string> = Object.create(null);
      for (const [name, value] of Object.entries(parameters)) {
        if (value === undefined) continue;
        try {
          decoded[name] = decodeURIComponent(value);
        } catch {
          throw invalidRequest(`path parameter ${name} is not valid percent-encoded UTF-8`);
        }
      }
      event.pathParameters = decoded;
    },
  };
}

/**
 * The member `name` of a header, query or path parameter map when the map holds it as its own, else undefined:
 * never a member of `Object.prototype` (names are data: docs/contract.md "Bounded cost, clean shutdown").
 */
export function ownValue<T>(
  map: Readonly<Record<string, T>> | null | undefined,
  name: string,
): T | undefined {
  return map && Object.hasOwn(map, name) ? map[name] : undefined;
}

/**
 * The value of the query parameter `name` from API Gateway's multi-value map, or undefined when absent.
 * @throws HttpError 400 `invalid_request` when it is given more than once.
 */
export function singleQueryValue(
  multiValue: Readonly<Record<string, readonly string[] | undefined>> | null | undefined,
  name: string,
): string | undefined {
  const values = ownValue(multiValue, name);
  if (values && values.length > 1) throw invalidRequest(`query parameter ${name} must be given at most once`);
  return values?.[0];
}

/**
 * Refuses query parameters `operation` does not declare (`Operation.queryParameters`).
 * @throws HttpError 400 `invalid_request` naming them (at most five, see `listedNames`).
 */
export function declaredQueryParameters(operation: Operation): MiddlewareObj<APIGatewayProxyEvent> {
  const declared = new Set(operation.queryParameters);
  const takes =
    declared.size === 0 ? 'this operation takes none' : `this operation takes ${[...declared].join(', ')}`;
  return {
    before: ({ event }) => {
      const sent = event.multiValueQueryStringParameters ?? event.queryStringParameters ?? {};
      const unknown = Object.keys(sent).filter((name) => !declared.has(name));
      if (unknown.length > 0) {
        throw invalidRequest(`query parameters not allowed: ${listedNames(unknown)} (${takes})`);
      }
    },
  };
}
