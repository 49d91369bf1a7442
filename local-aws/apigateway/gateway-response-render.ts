/**
 * API Gateway's own responses rendered from the template, their Velocity templates by velocityjs as
 * mock-integration.ts renders a MOCK integration's: behaviour.md G1-G3, G5.
 */
import { render } from 'velocityjs';
import type { GatewayResponseModel } from '../template/api-model.ts';

/**
 * What API Gateway knows of each error the local engine answers itself: default status, message and
 * `x-amzn-ErrorType`. Each is a gateway response type (`AWS::ApiGateway::GatewayResponse` `ResponseType`),
 * except LAMBDA_ERROR (below).
 */
const kinds = {
  UNAUTHORIZED: [401, 'Unauthorized', 'UnauthorizedException'],
  ACCESS_DENIED: [
    403,
    'User is not authorized to access this resource with an explicit deny',
    'AccessDeniedException',
  ],
  MISSING_AUTHENTICATION_TOKEN: [403, 'Missing Authentication Token', 'MissingAuthenticationTokenException'],
  /** A method requiring an API key whose authorizer returned no usage identifier. */
  INVALID_API_KEY: [403, 'Forbidden', 'ForbiddenException'],
  /** A key over its usage plan throttle (API Gateway developer guide, "Throttle requests to your REST APIs"). */
  THROTTLED: [429, 'Too Many Requests', 'TooManyRequestsException'],
  REQUEST_TOO_LARGE: [413, 'Request Too Long', 'RequestTooLargeException'],
  AUTHORIZER_CONFIGURATION_ERROR: [500, null, 'AuthorizerConfigurationException'],
  AUTHORIZER_FAILURE: [500, null, 'AuthorizerFailureException'],
  INTEGRATION_TIMEOUT: [504, 'Endpoint request timed out', 'InternalServerErrorException'],
  /**
   * A Lambda function error (thrown, timed out, malformed or oversized result): 502 by default, rendered with
   * the INTEGRATION_FAILURE gateway response (behaviour.md S4).
   */
  LAMBDA_ERROR: [502, 'Internal server error', 'InternalServerErrorException'],
} as const satisfies Record<string, readonly [number, string | null, string]>;

/** An error the local engine answers itself, rendered with the gateway response of its type. */
export type GatewayErrorKind = keyof typeof kinds;

/** The `ResponseType`s the local engine renders: each kind's own (LAMBDA_ERROR's is INTEGRATION_FAILURE) and the two defaults. */
type GatewayResponseType =
  | Exclude<GatewayErrorKind, 'LAMBDA_ERROR'>
  | 'INTEGRATION_FAILURE'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

/**
 * The body of an error that no gateway response covers, answered by the local server itself (a request Node's
 * parser refuses: 400; a function that could not start before a shutdown's deadline: 503), as a JSON value.
 * The composer gives its own error body; the default is API Gateway's own `{"message": ...}`.
 */
export type ErrorBodyRenderer = (status: 400 | 503, message: string) => unknown;

/** API Gateway's default error body: `{"message": message}`. */
export const defaultErrorBody: ErrorBodyRenderer = (_status, message) => ({ message });

/** A rendered response: status, headers and body text. */
export interface RenderedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** The request a gateway response answers, for the template's `$context` and the copied headers. */
export interface GatewayRequest {
  /** The request id API Gateway gives the request (`$context.requestId`, the `x-amzn-RequestId` header). */
  requestId: string;
  /** A request header's value, for the headers the response copies from the request (none: left out). */
  header(name: string): string | undefined;
}

/**
 * Renders `kind` from the template's gateway responses (by `ResponseType`, LAMBDA_ERROR by INTEGRATION_FAILURE,
 * else DEFAULT_4XX / DEFAULT_5XX by its default status). The `application/json` template is Velocity with
 * `$context.requestId` and `$context.error.message`, `.messageString` (the message as a JSON string) and
 * `.responseType` (the `$context` variables of API Gateway's mapping templates, developer guide); a type with no template answers
 * `{"message":$context.error.messageString}`, API Gateway's default.
 */
export function renderGatewayResponse(
  responses: Readonly<Record<string, GatewayResponseModel>>,
  kind: GatewayErrorKind,
  request: GatewayRequest,
): RenderedResponse {
  const [defaultStatus, message, errorType] = kinds[kind];
  const type: GatewayResponseType = kind === 'LAMBDA_ERROR' ? 'INTEGRATION_FAILURE' : kind;
  const family = defaultStatus >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX';
  const own = responses[type];
  const fallback = responses[family];
  const chosen = own ?? fallback;
  const template = chosen?.body ?? '{"message":$context.error.messageString}';
  const copied = Object.entries(chosen?.requestHeaders ?? {}).flatMap(([name, source]) => {
    const value = request.header(source);
    return value === undefined ? [] : [[name, value]];
  });
  return {
    statusCode: own?.statusCode ?? fallback?.statusCode ?? defaultStatus,
    headers: {
      'Content-Type': 'application/json',
      ...chosen?.headers,
      ...Object.fromEntries(copied),
      'x-amzn-ErrorType': errorType,
    },
    body: render(template, {
      context: {
        requestId: request.requestId,
        error: { message: message ?? '', messageString: JSON.stringify(message), responseType: type },
      },
    }),
  };
}
