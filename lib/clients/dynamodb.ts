/**
 * The DynamoDB document client, built once per container (docs/architecture.md "Principles").
 *
 * Endpoint: the SDK's standard `AWS_ENDPOINT_URL_DYNAMODB` when set (local server, SAM CLI, tests), else the
 * regional endpoint. Failure bounds (docs/contract.md 503 `service_unavailable`): at most {@link maxAttempts}
 * attempts (standard retry mode, exponential backoff with jitter), each with a {@link connectionTimeoutMs} ms
 * connection timeout and a {@link requestTimeoutMs} ms request timeout, so an unreachable database is
 * reported within about maxAttempts x (connection + request timeout) in the worst case, and at once when the
 * connection is refused.
 *
 * Numbers are read as `NumberValue` (see `document-client.ts`) so an int64 petId keeps every digit.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toDocumentClient } from './document-client.ts';

/** Attempts per DynamoDB request, the first included. */
export const maxAttempts = 3;
/** Milliseconds to establish a connection before the attempt fails. */
export const connectionTimeoutMs = 1000;
/** Milliseconds to wait for a response before the attempt fails. */
export const requestTimeoutMs = 2000;

/**
 * The service's retry and timeout settings of a DynamoDB client (also given to Powertools' idempotency layer and
 * used by the operator tools), so no request waits unbounded.
 */
export const dynamoDbClientConfig = {
  maxAttempts,
  requestHandler: {
    connectionTimeout: connectionTimeoutMs,
    requestTimeout: requestTimeoutMs,
    throwOnRequestTimeout: true,
  },
};

/** A document client with the service's retry, timeout and number settings. */
export function createDocumentClient(): DynamoDBDocumentClient {
  return toDocumentClient(new DynamoDBClient(dynamoDbClientConfig));
}

/** The container's shared client. */
export const documentClient = createDocumentClient();
