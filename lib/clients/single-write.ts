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

/**
 * A write refused: nothing was written. `item` is the stored item of the refusing action (`ALL_OLD`), if any;
 * `byClaim` when the refusing action was the key's claim (then `item` is the claim).
 */
export interface Refused {
  refused: true;
  item?: Record<string, AttributeValue>;
  byClaim?: true;
}

/** Tries of a write that met another transaction on its item (`TransactionConflict`): each a new transaction. */
const conflictRetries: RetryPolicy = { attempts: 5, minPauseMs: 10, maxPauseMs: 200 };

/**
 * Commits `action` in one TransactWriteItems, after `claim` (an Idempotency-Key's claim Put,
 * lib/idempotency/claim.ts) when given. DynamoDB answers the SDK's repeat of a transaction that committed (same
 * token, within 10 minutes) as a success without writing again, whatever others wrote in between, so a write
 * answered late is applied once; the claim covers a client's retry after a crash. Ask
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD` on the actions to get the stored item of a refusal; the
 * claim's refusal is read first. A cancellation for a conflict with another transaction is tried again as a
 * new transaction ({@link conflictRetries}).
 * @returns undefined when committed; {@link Refused} when a condition failed
 * @throws HttpError 503 `service_unavailable` when every try met a conflict; any other error of the SDK
 */
export async function writeOnce(
  client: DynamoDBDocumentClient,
  action: WriteAction,
  claim?: WriteAction,
): Promise<Refused | undefined> {
  const actions = claim ? [claim, action] : [action];
  return retried(
    conflictRetries,
    async () => {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: actions }));
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const index = reasons.findIndex((reason) => reason?.Code === 'ConditionalCheckFailed');
        const reason = reasons[index];
        if (reason) {
          const byClaim = claim !== undefined && index === 0;
          return {
            refused: true,
            ...(reason.Item ? { item: reason.Item } : {}),
            ...(byClaim ? { byClaim } : {}),
          } as Refused;
        }
        if (reasons.some((other) => other?.Code === 'TransactionConflict')) throw new TryAgain();
        throw error;
      }
    },
    () => new HttpError('service_unavailable', 'this item is being changed by others; retry'),
  );
}
