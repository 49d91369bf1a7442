/**
 * @module The local queues' messages kept in the embedded store's own LevelDB, beside its tables and its change
 * stream, so that a stop or a crash of the serving process loses no accepted message (README.md "Events and
 * queues"; behaviour.md Q9).
 * @see https://github.com/google/leveldb/blob/main/include/leveldb/options.h (WriteOptions::sync)
 */
import type { LevelOperation, LevelStore } from '../common/level-store.ts';
import type { QueueMessage } from './queue-message.ts';

/** LevelDB keys of the queues (beside dynalite's `table~`, `item-…~` and the stream's `stream~` prefixes). */
const keys = {
  message: (queueName: string, messageId: string) => `sqs~${queueName}~${messageId}`,
  /** Range bounds of a queue's messages: `~` sorts after every character of a message id (a UUID). */
  first: (queueName: string) => `sqs~${queueName}~`,
  end: (queueName: string) => `sqs~${queueName}~~`,
};

/** One change of a queue's messages: a message written as it now is, or removed. */
export type JournalEntry =
  | { type: 'put'; queueName: string; message: QueueMessage }
  | { type: 'del'; queueName: string; messageId: string };

/** A waiting writer: settled when the batch holding its entries is written. */
interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Writes the queues' message changes to a LevelDB in the order they are made. Changes made while a batch is
 * being written are gathered into the next batch (group commit): one LevelDB write for many messages under
 * load, and each caller resumes only once its changes are written. A batch is all or nothing, so a message
 * moved to its dead-letter queue is in exactly one of the two after a crash. Writes go to the operating system
 * without fsync (LevelDB's default), as the tables' own writes do: a crash or a SIGKILL of the process loses
 * nothing written, a crash of the machine may lose the last writes of both alike.
 */
export class QueueJournal {
  private readonly db: LevelStore;
  private pending: LevelOperation[] = [];
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | undefined;

  /** `db`: the embedded store's main LevelDB (JSON values). */
  constructor(db: LevelStore) {
    this.db = db;
  }

  /**
   * Writes `entries` after every change written before, in one batch with them or a later one.
   * @throws the LevelDB error of the batch that held them (then none of that batch is written)
   */
  write(entries: JournalEntry[]): Promise<void> {
    for (const entry of entries) {
      this.pending.push(
        entry.type === 'put'
          ? {
              type: 'put',
              key: keys.message(entry.queueName, entry.message.messageId),
              value: { ...entry.message },
            }
          : { type: 'del', key: keys.message(entry.queueName, entry.messageId) },
      );
    }
    const written = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    // The first batch starts after this turn, so that the changes of one turn share it.
    this.flushing ??= Promise.resolve().then(() => this.flush());
    return written;
  }

  private async flush(): Promise<void> {
    while (this.waiters.length > 0) {
      const operations = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        if (operations.length > 0) await this.db.batch(operations);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    this.flushing = undefined;
  }

  /** The messages kept for the queue named `queueName`, in no particular order. */
  async messages(queueName: string): Promise<QueueMessage[]> {
    const entries = await this.db.iterator({ gt: keys.first(queueName), lt: keys.end(queueName) }).all();
    return entries.map(([, value]) => value as QueueMessage);
  }
}
