/**
 * rotateWebhookSecret (docs/contract.md "History and events": what an endpoint's owner sees and steers): a new
 * signing secret for an API key's endpoint, the previous one kept on the endpoint with its expiry so that every
 * delivery for {@link secretOverlapHours} hours carries both signatures (lib/webhooks/endpoint-store.ts
 * `signingSecrets`), then the new one alone.
 * @module
 */
import { type DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { conditional } from '../clients/dynamodb-client.ts';
import { endpointItem, newSigningSecret } from './endpoint-store.ts';

/** Hours the previous secret still signs after a rotation. */
export const secretOverlapHours = 24;

/**
 * Gives `owner`'s endpoint `endpointId` of the endpoints table `tableName` a new secret at `now`: one
 * conditional UpdateItem (`ownerKeyId = :owner`) that moves the secret to `previousSecret`, expiring
 * {@link secretOverlapHours} later.
 * @returns the new secret, or undefined when `owner` holds no such endpoint.
 */
export async function rotateSecret(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  endpointId: string,
  now: Date,
): Promise<string | undefined> {
  const secret = newSigningSecret();
  const expiresAt = new Date(now.getTime() + secretOverlapHours * 3_600_000).toISOString();
  const rotated = await conditional(
    client.send(
      new UpdateItemCommand({
        ...endpointItem(tableName, endpointId),
        UpdateExpression: 'SET previousSecret = secret, previousSecretExpiresAt = :expires, secret = :secret',
        ConditionExpression: 'ownerKeyId = :owner',
        ExpressionAttributeValues: marshall({ ':expires': expiresAt, ':secret': secret, ':owner': owner }),
      }),
    ),
  );
  return rotated ? secret : undefined;
}
