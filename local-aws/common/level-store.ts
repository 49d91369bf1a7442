/**
 * @module The embedded store's LevelDB as its users see it: the database dynalite keeps its tables in, which
 * also holds the tables' change streams and checkpoints (dynamodb/change-stream.ts) and the queues' messages
 * (sqs/queue-journal.ts), so that a write and what it implies are one atomic batch (README.md "The embedded
 * DynamoDB"). Shared by the services, so it lives in common/ rather than in one of them.
 */

/** One operation of a LevelDB batch on the store's main database. */
export type LevelOperation = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

/** The LevelDB methods of the store's main database used here (abstract-level, JSON values). */
export interface LevelStore {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  batch(operations: LevelOperation[]): Promise<void>;
  iterator(options: {
    gt?: string;
    gte?: string;
    lt?: string;
    lte?: string;
    limit?: number;
    reverse?: boolean;
  }): {
    all(): Promise<[string, unknown][]>;
  };
}
