/** API Gateway REST proxy responses (payload 1.0) with a JSON body. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ErrorBody } from './errors.ts';

/** Every response of the service carries this content type (docs/service-spec.md §1: all bodies are application/json). */
export const jsonHeaders = { 'Content-Type': 'application/json' } as const;

/** A proxy response with `statusCode`, an already serialised JSON `body` and optional extra `headers`. */
export function jsonResponse(
  statusCode: number,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): APIGatewayProxyResult {
  return { statusCode, headers: { ...jsonHeaders, ...headers }, body };
}

/** A proxy response carrying an Error body; its status code is the body's `status`. */
export function errorResponse(body: ErrorBody): APIGatewayProxyResult {
  return jsonResponse(body.status, JSON.stringify(body));
}
