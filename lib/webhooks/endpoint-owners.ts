/**
 * The webhook endpoint owners table (docs/architecture.md "Webhook endpoints of API keys"): one item per API key
 * chain with endpoints (`ownerKeyId`, the first key id of the chain), holding the set of its endpoints' ids
 * (`endpointIds`) and of their URLs' hashes (`urlHashes`): what the API lists and what holds a key to
 * {@link maxEndpointsPerKey} endpoints and one per URL. Every read and write of it; its writes are parts of the
 * transactions that put or delete the endpoint itself (lib/webhooks/key-endpoints.ts).
 * @module
 */
import { createHash } from 'node:crypto';
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/** Most webhook endpoints one API key (one rotation chain) holds (docs/contract.md "History and events"). */
export const maxEndpointsPerKey = 20;

/** The hash of an endpoint's URL its owner's item holds: base64url of its SHA-256 (43 characters). */
function urlHash(url: string): string {
  return createHash('sha256').update(url, 'utf8').digest('base64url');
}

/** The ids of the endpoints `owner` holds, as its item lists them: one consistent GetItem of `tableName`. */
export async function ownedIds(client: DynamoDBClient, tableName: string, owner: string): Promise<string[]> {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: marshall({ ownerKeyId: owner }),
      ConsistentRead: true,
      ProjectionExpression: 'endpointIds',
    }),
  );
  const ids = Item && (unmarshall(Item).endpointIds as Set<string> | undefined);
  return ids ? [...ids] : [];
}

/**
 * The Update that gives `owner`'s item the new endpoint `endpointId` at `url`, while it holds fewer than
 * {@link maxEndpointsPerKey} and none at `url` (one endpoint per key and URL under any concurrency); a refusal
 * returns the item (`ALL_OLD`), read by {@link holdsUrl}.
 */
export function addToOwnerOf(tableName: string, owner: string, endpointId: string, url: string) {
  return {
    TableName: tableName,
    Key: marshall({ ownerKeyId: owner }),
    UpdateExpression: 'ADD endpointIds :id, urlHashes :h',
    ConditionExpression:
      '(attribute_not_exists(endpointIds) OR size(endpointIds) < :max) AND NOT contains(urlHashes, :u)',
    ExpressionAttributeValues: {
      ':id': { SS: [endpointId] },
      ':h': { SS: [urlHash(url)] },
      ':u': { S: urlHash(url) },
      ':max': { N: String(maxEndpointsPerKey) },
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  } satisfies TransactWriteItem['Update'];
}

/** True when the owner's item `refused` (returned by a refused {@link addToOwnerOf}) holds an endpoint at `url`. */
export function holdsUrl(refused: Record<string, AttributeValue> | undefined, url: string): boolean {
  return refused?.urlHashes?.SS?.includes(urlHash(url)) ?? false;
}

/** The Update that takes the endpoint `endpointId` at `url` out of `owner`'s item. */
export function removeFromOwnerOf(tableName: string, owner: string, endpointId: string, url: string) {
  return {
    TableName: tableName,
    Key: marshall({ ownerKeyId: owner }),
    UpdateExpression: 'DELETE endpointIds :id, urlHashes :h',
    ExpressionAttributeValues: { ':id': { SS: [endpointId] }, ':h': { SS: [urlHash(url)] } },
  } satisfies TransactWriteItem['Update'];
}
