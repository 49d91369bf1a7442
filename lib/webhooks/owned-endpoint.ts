/**
 * The ownership check of the endpoint operations on one endpoint (docs/contract.md "History and events": each on
 * the caller's own endpoints only, 404 for another key's).
 * @module
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { notFound } from '../http/errors.ts';
import type { EndpointRoute } from './endpoint.ts';
import { ownershipOf } from './endpoint-store.ts';

/** What the operations on one endpoint read of it besides its owner: the types it takes and its creation time. */
export type OwnedEndpoint = Pick<EndpointRoute, 'events' | 'createdAt'>;

/**
 * Checks that `owner` (the first key id of the caller's rotation chain) holds the endpoint `endpointId` of the
 * endpoints table `tableName`: one strongly consistent GetItem of its owner, event types and creation time
 * (never its secret: lib/webhooks/endpoint-store.ts `ownershipOf`).
 * @returns the endpoint's event types and `createdAt` (redeliverWebhook: which events it was sent).
 * @throws HttpError 404 `not_found` when there is no such endpoint or another key (or the tool) holds it.
 */
export async function requireOwnedEndpoint(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  endpointId: string,
): Promise<OwnedEndpoint> {
  const endpoint = await ownershipOf(client, tableName, endpointId);
  if (!endpoint || endpoint.ownerKeyId !== owner) {
    throw notFound(`this API key holds no webhook endpoint ${endpointId}`);
  }
  const { ownerKeyId: _owner, ...owned } = endpoint;
  return owned;
}
