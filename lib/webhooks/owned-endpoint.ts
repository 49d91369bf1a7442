/**
 * The ownership check of the endpoint operations on one endpoint (docs/contract.md "History and events": each on
 * the caller's own endpoints only, 404 for another key's).
 * @module
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { notFound } from '../http/errors.ts';
import { subscriptionItem } from './subscriptions.ts';

/**
 * Checks that `owner` (the first key id of the caller's rotation chain) holds the endpoint `endpointId` of the
 * subscriptions table `tableName`: one strongly consistent GetItem of its owner alone.
 * @throws HttpError 404 `not_found` when there is no such endpoint or another key (or the tool) holds it.
 */
export async function requireOwnedEndpoint(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  endpointId: string,
): Promise<void> {
  const { Item } = await client.send(
    new GetItemCommand({
      ...subscriptionItem(tableName, endpointId),
      ConsistentRead: true,
      ProjectionExpression: 'ownerKeyId',
    }),
  );
  if (!Item || unmarshall(Item).ownerKeyId !== owner) {
    throw notFound(`this API key holds no webhook endpoint ${endpointId}`);
  }
}
