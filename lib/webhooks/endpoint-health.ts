/**
 * The state of a webhook endpoint, written by the delivery and the webhook tool (docs/architecture.md
 * "Events and webhooks": the slow lane and the breaker). Each operation is one conditional UpdateItem on the
 * endpoints table; a condition that fails (the endpoint removed, or already moved on) changes nothing.
 * `state` is a DynamoDB reserved word: expressions name it `#s`.
 * @module
 */
import { type DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { conditional } from '../clients/dynamodb-client.ts';
import { type DisabledReason, endpointItem } from './endpoint-store.ts';
import type { KeyRefusal } from './owner-access.ts';
import { itemExists } from './stored-names.ts';

/** The state transitions the delivery writes (lib/webhooks/endpoint-store.ts `EndpointState`). */
export interface EndpointHealth {
  /**
   * An attempt cut at the fast lane's limit, or failed at `failedAt`: `isolated` (slow lane), and after a failure
   * `failingSince` set unless already set. Never undoes `disabled`.
   */
  isolate(endpointId: string, failedAt?: Date): Promise<void>;
  /** A delivered attempt: `failingSince` removed; back to `enabled` when `quick` (within the fast lane's limit). */
  delivered(endpointId: string, quick: boolean): Promise<void>;
  /**
   * The breaker: `disabled` at `now` (reason `failing`), when `failingSince` is still `failingSince` (no delivery since).
   * @returns true when this call disabled it.
   */
  disable(endpointId: string, failingSince: string, now: Date): Promise<boolean>;
}

/**
 * One UpdateItem of the endpoint `endpointId` in `tableName`, only while it exists and `condition` holds.
 * @returns false when the condition failed.
 */
async function update(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  expression: string,
  condition: string,
  values: Record<string, string>,
): Promise<boolean> {
  return conditional(
    client.send(
      new UpdateItemCommand({
        ...endpointItem(tableName, endpointId),
        UpdateExpression: expression,
        ConditionExpression: `${itemExists} AND (${condition})`,
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: marshall(values),
      }),
    ),
  );
}

/** Not `disabled` (`:d`). */
const notDisabled = 'attribute_not_exists(#s) OR #s <> :d';

/**
 * The endpoint `endpointId` `disabled` at `now` for `reason`, while `condition` holds (`values` holds the
 * values it names besides `:d`, `disabled`).
 * @returns false when the condition failed.
 */
function disableWhen(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  reason: DisabledReason,
  now: Date,
  condition: string,
  values: Record<string, string> = {},
) {
  return update(
    client,
    tableName,
    endpointId,
    'SET #s = :d, disabledAt = :n, disabledReason = :r',
    condition,
    { ':d': 'disabled', ':n': now.toISOString(), ':r': reason, ...values },
  );
}

/** The endpoint health over `client` and the endpoints table `tableName`. */
export function endpointHealth(client: DynamoDBClient, tableName: string): EndpointHealth {
  return {
    async isolate(id, failedAt) {
      await update(
        client,
        tableName,
        id,
        failedAt ? 'SET #s = :i, failingSince = if_not_exists(failingSince, :n)' : 'SET #s = :i',
        notDisabled,
        { ':i': 'isolated', ':d': 'disabled', ...(failedAt && { ':n': failedAt.toISOString() }) },
      );
    },
    async delivered(id, quick) {
      await update(
        client,
        tableName,
        id,
        quick ? 'SET #s = :e REMOVE failingSince' : 'REMOVE failingSince',
        notDisabled,
        quick ? { ':d': 'disabled', ':e': 'enabled' } : { ':d': 'disabled' },
      );
    },
    disable: (id, failingSince, now) =>
      disableWhen(client, tableName, id, 'failing', now, `failingSince = :f AND (${notDisabled})`, {
        ':f': failingSince,
      }),
  };
}

/**
 * The webhook tool's `enable`: the endpoint `enabled`, its failing and disabled times removed.
 * @returns false when there is no such endpoint.
 */
export function enableEndpoint(client: DynamoDBClient, tableName: string, endpointId: string) {
  return update(
    client,
    tableName,
    endpointId,
    'SET #s = :e REMOVE failingSince, disabledAt, disabledReason',
    itemExists,
    {
      ':e': 'enabled',
    },
  );
}

/**
 * The webhook tool's `disable`: the endpoint `disabled` at `now`, reason `operator` (no attempt until `enable`, or for an API
 * key's endpoint until its key creates it again: docs/contract.md "History and events").
 * @returns false when there is no such endpoint.
 */
export function disableEndpoint(client: DynamoDBClient, tableName: string, endpointId: string, now: Date) {
  return disableWhen(client, tableName, endpointId, 'operator', now, itemExists);
}

/**
 * The key check's disable of an API key's endpoint (lib/webhooks/owner-access.ts): `disabled` at `now` with
 * `reason`, while it still belongs to `owner` and is not disabled (re-enabled only by a live key of the chain
 * creating its URL again: docs/contract.md "History and events").
 * @returns true when this call disabled it.
 */
export function disableForKey(
  client: DynamoDBClient,
  tableName: string,
  endpointId: string,
  owner: string,
  reason: KeyRefusal,
  now: Date,
) {
  return disableWhen(client, tableName, endpointId, reason, now, `ownerKeyId = :o AND (${notDisabled})`, {
    ':o': owner,
  });
}
