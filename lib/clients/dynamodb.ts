/** The container's DynamoDB document client, retries and timeouts bounded (docs/contract.md "Errors"). */
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
 * The service's retry and timeout settings of a DynamoDB client (also for Powertools' idempotency layer and
 * the operator tools): an unreachable database fails within about maxAttempts x (connection + request
 * timeout).
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

/** The container's shared client; endpoint: `AWS_ENDPOINT_URL_DYNAMODB` when set, else the regional one. */
export const documentClient = createDocumentClient();
