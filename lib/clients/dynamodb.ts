/** The container's DynamoDB document client, retries and timeouts bounded (docs/contract.md "Errors"). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withDeadline } from '../http/deadline.ts';
import { toDocumentClient } from './document-client.ts';
import { dynamoDbClientConfig } from './dynamodb-client.ts';

export {
  connectionTimeoutMs,
  createDynamoDbClient,
  dynamoDbClientConfig,
  maxAttempts,
  requestTimeoutMs,
} from './dynamodb-client.ts';

/**
 * A document client with the service's retry, timeout and number settings, its calls bounded by the
 * invocation's deadline (lib/http/deadline.ts; none outside an HTTP function's invocation).
 */
export function createDocumentClient(): DynamoDBDocumentClient {
  return toDocumentClient(withDeadline(new DynamoDBClient(dynamoDbClientConfig)));
}

/** The container's shared client; endpoint: `AWS_ENDPOINT_URL_DYNAMODB` when set, else the regional one. */
export const documentClient = createDocumentClient();
