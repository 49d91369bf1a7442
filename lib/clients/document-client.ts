/**
 * Document clients as the project builds them, without side effects (no client is created at import, so a
 * process may import this before it sets `AWS_ENDPOINT_URL_DYNAMODB`).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * How every document client of the project reads numbers: as `NumberValue` (DynamoDB's decimal text in an
 * object), never as a JavaScript number, which would round an int64 petId. Not as plain strings: a scan's
 * `LastEvaluatedKey` goes back as the next page's `ExclusiveStartKey`, and a string would be sent as type S.
 */
export const documentClientOptions = { unmarshallOptions: { wrapNumbers: true } };

/** A document client over `client` that reads numbers as `NumberValue` ({@link documentClientOptions}). */
export function toDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, documentClientOptions);
}
