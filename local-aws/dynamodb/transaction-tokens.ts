/**
 * `ClientRequestToken` of the embedded store's `TransactWriteItems`, as DynamoDB documents it
 * (local-aws/behaviour.md "DynamoDB transactions", row X1; API reference, TransactWriteItems,
 * ClientRequestToken): a repeat of a committed transaction with the same token and the same request within 10
 * minutes of its completion succeeds and writes nothing again; the same token with another request is
 * `IdempotentParameterMismatchException`; a repeat while the first still runs is
 * `TransactionInProgressException`.
 */
import { createHash } from 'node:crypto';
import type { LevelOperation, StreamLevelDb } from './change-stream.ts';

/** How long a token names its committed transaction, in milliseconds (DynamoDB: 10 minutes). */
export const tokenWindowMs = 10 * 60 * 1000;
/** Expired tokens are removed at most this often, in milliseconds. */
const trimEveryMs = 60 * 1000;

/** A token's record, written in the batch of the transaction it names. */
interface TokenRecord {
  /** {@link requestDigest} of the transaction's request. */
  digest: string;
  /** When the transaction committed: epoch milliseconds. */
  committedAt: number;
}

/** An answer of the store: HTTP status and JSON body. */
export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The LevelDB key of a token's record: a prefix of its own beside dynalite's (`table~`, `item-...`, `index-...`). */
const recordKey = (token: string) => `transaction-token~${token}`;
const firstKey = 'transaction-token~';
const endKey = 'transaction-token\u007f';

/** JSON text of `value` with every object's members sorted by name: equal requests, equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 hex of a TransactWriteItems request's parameters, the token itself left out. */
export function requestDigest(body: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson({ ...body, ClientRequestToken: undefined }))
    .digest('hex');
}

function dynamoError(type: string, message: string): TokenAnswer {
  return { status: 400, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message } };
}

/** The tokens of one store: its committed ones in its LevelDB, the running ones in memory. */
export class TransactionTokens {
  private readonly db: StreamLevelDb;
  private readonly clock: () => number;
  /** Token -> digest of the transactions running now. */
  private readonly running = new Map<string, string>();
  private trimmedAt = 0;

  constructor(db: StreamLevelDb, clock: () => number = Date.now) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Runs the transaction `body` through `run` unless its token decides the answer: the repeat of a committed
   * transaction is 200 `{}` with nothing run, another request under a used token or one still running is
   * refused. `run` gets the LevelDB operation that records the token, to write in the transaction's batch.
   */
  async once(body: Record<string, unknown>, run: (record: LevelOperation[]) => Promise<TokenAnswer>) {
    const token = body.ClientRequestToken;
    if (typeof token !== 'string') return run([]);
    const digest = requestDigest(body);
    const running = this.running.get(token);
    if (running !== undefined) {
      return running === digest
        ? dynamoError('TransactionInProgressException', 'Transaction is in progress')
        : dynamoError(
            'IdempotentParameterMismatchException',
            'The client token was used with another request',
          );
    }
    this.running.set(token, digest);
    try {
      const committed = await this.committed(token);
      if (committed) {
        return committed.digest === digest
          ? { status: 200, body: {} }
          : dynamoError(
              'IdempotentParameterMismatchException',
              'The client token was used with another request',
            );
      }
      const record: TokenRecord = { digest, committedAt: this.clock() };
      return await run([{ type: 'put', key: recordKey(token), value: record }]);
    } finally {
      this.running.delete(token);
      await this.trim();
    }
  }

  /** The record of `token` when it names a transaction committed less than {@link tokenWindowMs} ago. */
  private async committed(token: string): Promise<TokenRecord | undefined> {
    let record: TokenRecord;
    try {
      record = (await this.db.get(recordKey(token))) as TokenRecord;
    } catch (error) {
      if ((error as { code?: string }).code === 'LEVEL_NOT_FOUND') return undefined;
      if ((error as Error).name === 'NotFoundError') return undefined;
      throw error;
    }
    if (record === undefined || this.clock() - record.committedAt >= tokenWindowMs) return undefined;
    return record;
  }

  /** Removes the records of expired tokens, if not done in the last minute. */
  private async trim(): Promise<void> {
    const now = this.clock();
    if (now - this.trimmedAt < trimEveryMs) return;
    this.trimmedAt = now;
    const records = await this.db.iterator({ gte: firstKey, lt: endKey }).all();
    const expired = records
      .filter(([, value]) => now - (value as TokenRecord).committedAt >= tokenWindowMs)
      .map(([key]): LevelOperation => ({ type: 'del', key }));
    if (expired.length > 0) await this.db.batch(expired);
  }
}
