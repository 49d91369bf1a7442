/** Document clients as the project builds them; none is created at import (docs/architecture.md). */
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
