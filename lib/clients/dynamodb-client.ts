/**
 * The service's low-level DynamoDB client settings, in a module of their own so that a bundle using only the
 * low-level client does not carry the document client's package (docs/architecture.md "Bundles").
 */
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';

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

/** A low-level client with {@link dynamoDbClientConfig} (for util-dynamodb's marshalling). */
export function createDynamoDbClient(): DynamoDBClient {
  return new DynamoDBClient(dynamoDbClientConfig);
}

/** Runs a conditional write; false when its condition failed (nothing written). @throws any other error */
export async function conditional(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
