/**
 * A single-item write as a one-action TransactWriteItems, whose `ClientRequestToken` the SDK fills in once per
 * call and sends again with each of its retries: docs/architecture.md "Writes exactly once".
 */
import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { HttpError } from '../http/errors.ts';
import { type RetryPolicy, retried, TryAgain } from '../retry.ts';

/** One action of a transaction (document client form): a Put, an Update, a Delete or a ConditionCheck. */
export type WriteAction = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A write whose condition failed: nothing was written; `item` is the stored item (`ALL_OLD`), if any. */
export interface Refused {
  refused: true;
  item?: Record<string, AttributeValue>;
}

/** Tries of a write that met another transaction on its item (`TransactionConflict`): each a new transaction. */
const conflictRetries: RetryPolicy = { attempts: 5, minPauseMs: 10, maxPauseMs: 200 };

/**
 * Commits `action` alone in one TransactWriteItems. DynamoDB answers the SDK's repeat of a transaction that
 * committed (same token, within 10 minutes) as a success without writing again, whatever others wrote in
 * between, so a write answered late is applied once. Ask `ReturnValuesOnConditionCheckFailure: ALL_OLD` on the
 * action to get the stored item of a refusal. A cancellation for a conflict with another transaction is tried
 * again as a new transaction ({@link conflictRetries}).
 * @returns undefined when committed; {@link Refused} when its condition failed
 * @throws HttpError 503 `service_unavailable` when every try met a conflict; any other error of the SDK
 */
export async function writeOnce(
  client: DynamoDBDocumentClient,
  action: WriteAction,
): Promise<Refused | undefined> {
  return retried(
    conflictRetries,
    async () => {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: [action] }));
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const [reason] = error.CancellationReasons ?? [];
        if (reason?.Code === 'ConditionalCheckFailed')
          return { refused: true, ...(reason.Item ? { item: reason.Item } : {}) } as Refused;
        if (reason?.Code === 'TransactionConflict') throw new TryAgain();
        throw error;
      }
    },
    () => new HttpError('service_unavailable', 'this item is being changed by others; retry'),
  );
}
