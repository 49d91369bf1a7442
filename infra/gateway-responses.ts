/** The gateway responses, the Error bodies API Gateway writes: local-aws/behaviour.md Notes 1. */
import { type ErrorBody, type ErrorCode, errorBody, unauthorizedMessage } from '#lib/http/errors.ts';

/** An API Gateway response type (`AWS::ApiGateway::GatewayResponse` `ResponseType`). */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'INVALID_API_KEY'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'REQUEST_TOO_LARGE'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_REQUEST_BODY'
  | 'BAD_REQUEST_PARAMETERS'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'API_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

const unauthorized = unauthorizedMessage;
const noRoute = 'no such route or method: the operations are listed in the API description (openapi.yaml)';
const throttled = 'too many requests; retry later';
const badRequest = 'the request is not valid';
const unavailable = 'the service is temporarily unavailable; retry later';
const internal = 'internal error';

const definitions: Record<GatewayResponseType, [ErrorCode, string]> = {
  UNAUTHORIZED: ['unauthorized', unauthorized],
  ACCESS_DENIED: ['unauthorized', unauthorized],
  INVALID_API_KEY: ['unauthorized', unauthorized],
  MISSING_AUTHENTICATION_TOKEN: ['not_found', noRoute],
  RESOURCE_NOT_FOUND: ['not_found', noRoute],
  REQUEST_TOO_LARGE: [
    'payload_too_large',
    'request too large: at most 6 MB of body and 10,240 bytes of headers',
  ],
  THROTTLED: ['too_many_requests', throttled],
  QUOTA_EXCEEDED: ['too_many_requests', throttled],
  BAD_REQUEST_BODY: ['invalid_request', badRequest],
  BAD_REQUEST_PARAMETERS: ['invalid_request', badRequest],
  UNSUPPORTED_MEDIA_TYPE: ['invalid_request', 'Content-Type must be application/json'],
  AUTHORIZER_FAILURE: ['service_unavailable', unavailable],
  AUTHORIZER_CONFIGURATION_ERROR: ['service_unavailable', unavailable],
  API_CONFIGURATION_ERROR: ['internal_error', internal],
  INTEGRATION_FAILURE: ['internal_error', internal],
  INTEGRATION_TIMEOUT: ['service_unavailable', unavailable],
  DEFAULT_4XX: ['invalid_request', badRequest],
  DEFAULT_5XX: ['internal_error', internal],
};

/**
 * Seconds a throttled client waits before a retry, sent as `Retry-After` (RFC 9110 section 10.2.3) on 429
 * answers: every per-key rate is a whole number of requests per second (infra/settings.ts; `keys create
 * --rate` takes integers from 1), so a key's bucket has a token again within 1 s. API Gateway sets a gateway
 * response's headers from static values or request parameters only (`responseParameters`, developer guide
 * "x-amazon-apigateway-gateway-responses.gatewayResponse object"), so deployed the value is this constant; the
 * local usage plan sends the exact wait (local-aws/behaviour.md S10).
 */
export const retryAfterSeconds = 1;

/**
 * The headers each response type carries besides `Content-Type`, as static values: `Retry-After` on the two
 * 429 types (QUOTA_EXCEEDED cannot occur while the usage plans set no quota; it carries the same header so that
 * a quota added later does not answer 429 without one).
 */
export const gatewayResponseHeaders: Readonly<Partial<Record<GatewayResponseType, Record<string, string>>>> =
  {
    THROTTLED: { 'Retry-After': String(retryAfterSeconds) },
    QUOTA_EXCEEDED: { 'Retry-After': String(retryAfterSeconds) },
  };

/** The Error body API Gateway answers with for each response type; its `status` is the response's status. */
export const gatewayResponses: Readonly<Record<GatewayResponseType, ErrorBody>> = Object.fromEntries(
  Object.entries(definitions).map(([type, [code, message]]) => [type, errorBody(code, message)]),
) as Record<GatewayResponseType, ErrorBody>;
