/**
 * The import's batch writes to the inventory table (create or replace, BatchWriteItem): docs/contract.md
 * "Operator tooling", docs/architecture.md "Data layout".
 */
import {
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { type RetryPolicy, retried, TryAgain } from '../retry.ts';
import type { InventoryItem } from './inventory-item.ts';
import { lastChangeAttributes } from './last-change.ts';
import { type PetDetails, storedPetDetails } from './pet-details.ts';
import { storedItem } from './stored-item.ts';

/** Items per BatchWriteItem request: DynamoDB's maximum. */
const batchSize = 25;
/** BatchWriteItem requests per batch at most: the first and the resends of its unprocessed items. */
export const maxBatchAttempts = 8;
/**
 * The resends of a request's unprocessed items: {@link maxBatchAttempts} requests in all, jittered pauses from
 * 50 ms doubling up to 2 s (a few seconds in all).
 */
const resends: RetryPolicy = { attempts: maxBatchAttempts, minPauseMs: 50, maxPauseMs: 2000 };

/**
 * {@link putEntries} stopped before writing every entry: `written` of them were written (every entry of the
 * earlier requests and the processed ones of the failing request), `cause` is why.
 */
export class IncompleteWriteError extends Error {
  readonly written: number;

  constructor(written: number, reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'IncompleteWriteError';
    this.written = written;
  }
}

/**
 * Writes `items` into the inventory table `tableName` (create or replace: a rerun converges), each with its
 * reorder point when it has one, with their pet
 * details (none: stored ones go) and the change `import` (lib/inventory/last-change.ts), in BatchWriteItem
 * requests of 25, resending unprocessed items,
 * {@link maxBatchAttempts} times per request.
 * @throws IncompleteWriteError (saying how many of `items` were written) when DynamoDB still fails.
 */
export async function putEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: readonly (InventoryItem & { details?: PetDetails })[],
): Promise<void> {
  let written = 0;
  for (let start = 0; start < items.length; start += batchSize) {
    let requests: Record<string, unknown>[] = items
      .slice(start, start + batchSize)
      .map(({ details, ...item }) => ({
        PutRequest: {
          Item: {
            ...storedItem(item),
            ...(details === undefined ? {} : storedPetDetails(details)),
            ...lastChangeAttributes({ reason: 'import' }),
          },
        },
      }));
    await retried(
      resends,
      async () => {
        let result: BatchWriteCommandOutput;
        try {
          result = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
        } catch (error) {
          const { name, message } = error as Error;
          throw new IncompleteWriteError(written, `DynamoDB failed: ${name}: ${message}`, { cause: error });
        }
        const unprocessed = result.UnprocessedItems?.[tableName] ?? [];
        written += requests.length - unprocessed.length;
        requests = unprocessed;
        if (requests.length > 0) throw new TryAgain();
      },
      () =>
        new IncompleteWriteError(
          written,
          `DynamoDB left ${requests.length} item(s) unprocessed after ${maxBatchAttempts} attempts (throttled)`,
        ),
    );
  }
}
