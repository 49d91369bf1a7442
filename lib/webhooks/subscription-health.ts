/**
 * The state of a subscription's endpoint, written by the delivery and the webhook tool (docs/architecture.md
 * "Events and webhooks": the slow lane and the breaker). Each operation is one conditional UpdateItem on the
 * subscriptions table; a condition that fails (the subscription removed, or already moved on) changes nothing.
 * @module
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

/** The state transitions of a subscription (lib/webhooks/subscriptions.ts `SubscriptionState`). */
export interface SubscriptionHealth {
  /** An attempt cut at the fast lane's limit: `enabled` becomes `isolated` (slow lane). */
  isolate(subscriptionId: string): Promise<void>;
  /** A failed attempt at `now`: `isolated`, `failingSince` set unless already set. Never undoes `disabled`. */
  failed(subscriptionId: string, now: Date): Promise<void>;
  /** A delivered attempt: `failingSince` removed; back to `enabled` when `quick` (within the fast lane's limit). */
  delivered(subscriptionId: string, quick: boolean): Promise<void>;
  /**
   * The breaker: `disabled` at `now`, when `failingSince` is still `failingSince` (no delivery since).
   * @returns true when this call disabled it.
   */
  disable(subscriptionId: string, failingSince: string, now: Date): Promise<boolean>;
  /** The webhook tool's `enable`: `enabled`, failing and disabled times removed. @returns false when there is none. */
  enable(subscriptionId: string): Promise<boolean>;
}

/** `state` is a DynamoDB reserved word: every expression names it through `#state`. */
const names = { '#state': 'state' };

/** The subscription health over `client` and the subscriptions table `tableName`. */
export function subscriptionHealth(client: DynamoDBClient, tableName: string): SubscriptionHealth {
  /** One UpdateItem; false when its condition failed. */
  async function update(
    subscriptionId: string,
    expression: { update: string; condition: string; values: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: marshall({ subscriptionId }),
          UpdateExpression: expression.update,
          ConditionExpression: `attribute_exists(subscriptionId) AND (${expression.condition})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: marshall(expression.values),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
  const notDisabled = 'attribute_not_exists(#state) OR #state <> :disabled';
  return {
    async isolate(subscriptionId) {
      await update(subscriptionId, {
        update: 'SET #state = :isolated',
        condition: 'attribute_not_exists(#state) OR #state = :enabled',
        values: { ':isolated': 'isolated', ':enabled': 'enabled' },
      });
    },
    async failed(subscriptionId, now) {
      await update(subscriptionId, {
        update: 'SET #state = :isolated, failingSince = if_not_exists(failingSince, :now)',
        condition: notDisabled,
        values: { ':isolated': 'isolated', ':disabled': 'disabled', ':now': now.toISOString() },
      });
    },
    async delivered(subscriptionId, quick) {
      await update(subscriptionId, {
        update: quick ? 'SET #state = :enabled REMOVE failingSince' : 'REMOVE failingSince',
        condition: notDisabled,
        values: { ':disabled': 'disabled', ...(quick && { ':enabled': 'enabled' }) },
      });
    },
    disable(subscriptionId, failingSince, now) {
      return update(subscriptionId, {
        update: 'SET #state = :disabled, disabledAt = :now',
        condition: `failingSince = :since AND (${notDisabled})`,
        values: { ':disabled': 'disabled', ':now': now.toISOString(), ':since': failingSince },
      });
    },
    enable(subscriptionId) {
      return update(subscriptionId, {
        update: 'SET #state = :enabled REMOVE failingSince, disabledAt',
        condition: 'attribute_exists(subscriptionId)',
        values: { ':enabled': 'enabled' },
      });
    },
  };
}
