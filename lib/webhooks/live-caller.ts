/**
 * The webhook endpoint operations' own check of the calling key (docs/contract.md "History and events":
 * revoking a key, or its expiry, disables its endpoints within seconds; docs/architecture.md "Webhook endpoints
 * of API keys"). API Gateway caches the authorizer's Allow per token for `authorizerCacheTtlSeconds` (lib/api.ts),
 * so a key revoked or expired within that time still reaches the functions: those that make, test or re-key an
 * endpoint decide the key again, from the request's own bearer token, on a strongly consistent read.
 * @module
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiKeyDigest } from '../auth/api-key.ts';
import { bearerToken } from '../auth/authorize.ts';
import { keyStateAt } from '../auth/key-state.ts';
import { HttpError, unauthorizedMessage } from '../http/errors.ts';
import { headerValues } from '../http/headers.ts';

/**
 * A check of the calling key on `tableName` (the keys table) through `client`: one strongly consistent GetItem of
 * the digest of the request's bearer key, projected to its revocation and expiry.
 * @returns a function that resolves when the key is active at `now` (default: the time of the call), as the
 *   authorizer decides (lib/auth/key-state.ts).
 * @throws (the returned function) HttpError 401 `unauthorized`, the authorizer's answer, when the key is unknown,
 *   revoked or expired; the store's errors otherwise.
 */
export function liveCallerCheck(
  client: DynamoDBClient,
  tableName: string,
): (event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>, now?: Date) => Promise<void> {
  return async (event, now = new Date()) => {
    // API Gateway let the request through its authorizer: the header carries one bearer key.
    const token = bearerToken(headerValues(event, 'Authorization')[0]);
    const { Item } =
      token === undefined
        ? {}
        : await client.send(
            new GetItemCommand({
              TableName: tableName,
              Key: { keyDigest: { S: apiKeyDigest(token) } },
              ConsistentRead: true,
              ProjectionExpression: 'keyDigest, revokedAt, expiresAt',
            }),
          );
    if (Item === undefined || keyStateAt(unmarshall(Item), now) !== 'active') {
      throw new HttpError('unauthorized', unauthorizedMessage);
    }
  };
}
