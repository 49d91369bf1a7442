/**
 * The ownership check of the endpoint operations on one endpoint (docs/contract.md "History and events": each on
 * the caller's own endpoints only, 404 for another key's).
 * @module
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { notFound } from '../http/errors.ts';
import { type EndpointRoute, endpointItem } from './endpoint-store.ts';
import type { EndpointEventType } from './event-access.ts';

/** What the operations on one endpoint read of it besides its owner: the types it takes and its creation time. */
export type OwnedEndpoint = Pick<EndpointRoute, 'events' | 'createdAt'>;

/**
 * Checks that `owner` (the first key id of the caller's rotation chain) holds the endpoint `endpointId` of the
 * endpoints table `tableName`: one strongly consistent GetItem of its owner, event types and creation time
 * (never its secret).
 * @returns the endpoint's event types and `createdAt` (redeliverWebhook: which events it was sent).
 * @throws HttpError 404 `not_found` when there is no such endpoint or another key (or the tool) holds it.
 */
export async function requireOwnedEndpoint(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  endpointId: string,
): Promise<OwnedEndpoint> {
  const { Item } = await client.send(
    new GetItemCommand({
      ...endpointItem(tableName, endpointId),
      ConsistentRead: true,
      ProjectionExpression: 'ownerKeyId, #events, createdAt',
      ExpressionAttributeNames: { '#events': 'events' },
    }),
  );
  const item = Item && unmarshall(Item);
  if (!item || item.ownerKeyId !== owner) {
    throw notFound(`this API key holds no webhook endpoint ${endpointId}`);
  }
  return {
    events: [...((item.events as Iterable<EndpointEventType> | undefined) ?? [])],
    ...(item.createdAt !== undefined && { createdAt: String(item.createdAt) }),
  };
}
