/**
 * The embedded DynamoDB's change stream: one DynamoDB Streams record per committed item change of a table
 * with `StreamSpecification.StreamEnabled`, kept in the store's own LevelDB and written in the same batch as
 * the change (README.md "The change stream"; behaviour.md D1-D5).
 */
import { randomUUID } from 'node:crypto';
import type { LevelOperation, LevelStore } from '../common/level-store.ts';

/** An item as dynalite stores it: DynamoDB attribute values by name. */
export type AttributeMap = Record<string, unknown>;

/** A stream record as Lambda delivers it to a function (`DynamoDBStreamEvent` `Records[]` of aws-lambda's types). */
export interface StreamRecord {
  /** A unique id of the record (32 hex digits). */
  eventID: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  eventVersion: '1.1';
  eventSource: 'aws:dynamodb';
  awsRegion: string;
  /** The table's `LatestStreamArn`. */
  eventSourceARN: string;
  dynamodb: {
    /** Epoch seconds (whole) of the commit, this process's clock. */
    ApproximateCreationDateTime: number;
    Keys: AttributeMap;
    NewImage?: AttributeMap;
    OldImage?: AttributeMap;
    /** Decimal digits, zero-padded to {@link sequenceDigits}: text order is commit order. */
    SequenceNumber: string;
    SizeBytes: number;
    StreamViewType: 'NEW_AND_OLD_IMAGES';
  };
}

/** A table as the store keeps its description (dynalite's `tableDb`), with what the stream needs. */
export interface StreamTable {
  TableName: string;
  KeySchema: { AttributeName: string }[];
  StreamSpecification?: { StreamEnabled?: boolean; StreamViewType?: string };
  LatestStreamArn?: string;
}

/** One item change waiting for its sequence number: the table, the stored item before and after (null: none). */
export interface ItemChange {
  table: StreamTable;
  oldImage: AttributeMap | null;
  newImage: AttributeMap | null;
}

/** Digits of a sequence number, as DynamoDB Streams writes them (e.g. `000000000000000000001`). */
export const sequenceDigits = 21;
/** How long a record is kept: DynamoDB Streams keeps records 24 hours. */
export const retentionMs = 24 * 60 * 60 * 1000;

/** The variable that shortens the local stream's retention (whole seconds), so tests reach the records' expiry. */
export const retentionVariable = 'LOCAL_STREAM_RETENTION_SECONDS';

/**
 * The retention of a new local stream in ms: `LOCAL_STREAM_RETENTION_SECONDS` when set, else {@link retentionMs}
 * (README.md "Data folder").
 * @throws Error when the variable is not a positive whole number of seconds
 */
export function streamRetentionMs(): number {
  const value = process.env[retentionVariable];
  if (value === undefined || value === '') return retentionMs;
  if (!/^[1-9][0-9]*$/.test(value))
    throw new Error(`${retentionVariable} must be a positive whole number of seconds`);
  return Number(value) * 1000;
}
/** How often a table's expired records are looked for, at most (they are removed lazily, as reads pass). */
const trimEveryMs = 60_000;

/** LevelDB keys of the stream (beside dynalite's `table~`, `item-…~`, `index-…~`, `tag-…~` prefixes). */
const keys = {
  /** The last sequence number given, written in the batch of each record. */
  lastSequence: 'stream-sequence',
  record: (tableName: string, sequence: string) => `stream~${tableName}~${sequence}`,
  /** Range bounds of a table's records: every sequence number is digits, and ':' sorts after '9'. */
  first: (tableName: string) => `stream~${tableName}~`,
  end: (tableName: string) => `stream~${tableName}~:`,
  checkpoint: (id: string) => `stream-checkpoint~${id}`,
};

/** True when the table streams changes (`StreamSpecification.StreamEnabled`). */
export function streams(table: StreamTable): boolean {
  return table.StreamSpecification?.StreamEnabled === true;
}

/** An attribute value in a canonical form: map keys sorted, set members sorted (a set has no order). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return Object.fromEntries(
    entries.map(([name, member]) =>
      ['SS', 'NS', 'BS'].includes(name) && Array.isArray(member)
        ? [name, [...member].sort()]
        : [name, canonical(member)],
    ),
  );
}

/** True when the two stored items hold the same attributes and values (a write that changes nothing). */
export function sameItem(a: AttributeMap | null, b: AttributeMap | null): boolean {
  if (!a || !b) return a === b;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Bytes of an attribute map as DynamoDB counts item size: names plus values (numbers as their text). */
function attributeBytes(map: AttributeMap | undefined): number {
  if (!map) return 0;
  const valueBytes = (value: unknown): number => {
    if (value === null || typeof value !== 'object') return Buffer.byteLength(String(value));
    if (Array.isArray(value)) return value.reduce((sum: number, member) => sum + valueBytes(member), 0);
    return Object.entries(value as Record<string, unknown>).reduce(
      (sum, [name, member]) => sum + Buffer.byteLength(name) + valueBytes(member),
      0,
    );
  };
  return Object.entries(map).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value),
    0,
  );
}

/**
 * The stream label of a table created at `creationSeconds` (epoch seconds): that UTC time with milliseconds
 * and no zone, the last part of its stream ARN `<TableArn>/stream/<label>`.
 */
export function streamLabel(creationSeconds: number): string {
  return new Date(creationSeconds * 1000).toISOString().slice(0, -1);
}

/** The stream record of `change` with sequence number `sequence`, committed at `now` (epoch ms). */
function streamRecord(change: ItemChange, sequence: string, now: number, region: string): StreamRecord {
  const { table, oldImage, newImage } = change;
  const item = (newImage ?? oldImage) as AttributeMap;
  const Keys = Object.fromEntries(
    table.KeySchema.map(({ AttributeName }) => [AttributeName, item[AttributeName]]),
  );
  return {
    eventID: randomUUID().replaceAll('-', ''),
    eventName: !oldImage ? 'INSERT' : !newImage ? 'REMOVE' : 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: table.LatestStreamArn ?? '',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(now / 1000),
      Keys,
      ...(newImage ? { NewImage: newImage } : {}),
      ...(oldImage ? { OldImage: oldImage } : {}),
      SequenceNumber: sequence,
      SizeBytes:
        attributeBytes(Keys) + attributeBytes(newImage ?? undefined) + attributeBytes(oldImage ?? undefined),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

/**
 * The change stream of one embedded store (its main LevelDB `db`). Writes that carry item changes are
 * committed one after another ({@link ChangeStream.commit}), so that sequence numbers grow in commit order:
 * a reader that has seen sequence n never later finds a smaller one appear.
 */
export class ChangeStream {
  private readonly db: LevelStore;
  private readonly region: string;
  private last: bigint | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly trimmedAt = new Map<string, number>();
  private readonly clock: () => number;
  /** How long a record is kept, in ms ({@link streamRetentionMs}): an older one is trimmed, its mapping gives it up. */
  readonly retentionMs: number;

  /** `db`: the store's main LevelDB; `region`: of the records; `clock`: epoch ms (default `Date.now`). */
  constructor(db: LevelStore, region: string, clock: () => number = Date.now) {
    this.db = db;
    this.region = region;
    this.clock = clock;
    this.retentionMs = streamRetentionMs();
  }

  /**
   * Writes `operations` and one stream record per real change of `changes` (an item written as it was yields
   * none; a table without a stream none) in ONE LevelDB batch, after every earlier commit.
   * @throws the LevelDB error; then nothing of the batch is written
   */
  commit(operations: LevelOperation[], changes: ItemChange[]): Promise<void> {
    const real = changes.filter(
      (change) => streams(change.table) && !sameItem(change.oldImage, change.newImage),
    );
    if (real.length === 0) return this.db.batch(operations);
    const run = this.queue.then(async () => {
      this.last ??= BigInt(((await this.getOrUndefined(keys.lastSequence)) as string | undefined) ?? '0');
      const now = this.clock();
      const records = real.map((change) => {
        const sequence = String(++(this.last as bigint)).padStart(sequenceDigits, '0');
        return streamRecord(change, sequence, now, this.region);
      });
      const recordOperations: LevelOperation[] = records.map((record, at) => ({
        type: 'put',
        key: keys.record((real[at] as ItemChange).table.TableName, record.dynamodb.SequenceNumber),
        value: record,
      }));
      const lastSequence = records.at(-1)?.dynamodb.SequenceNumber as string;
      try {
        await this.db.batch([
          ...operations,
          ...recordOperations,
          { type: 'put', key: keys.lastSequence, value: lastSequence },
        ]);
      } catch (error) {
        // Not written: the next commit reads the last sequence number again.
        this.last = undefined;
        throw error;
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Up to `limit` records of table `tableName` after sequence number `after` (undefined: from the oldest kept),
   * oldest first. Removes first (at most once a minute) the table's records older than the retention up to
   * `after`: a record the reader has not passed yet stays until it reads it, so that its mapping gives it up
   * to the on-failure destination rather than never seeing it (README.md "The change stream").
   */
  async read(tableName: string, after: string | undefined, limit: number): Promise<StreamRecord[]> {
    if (after) await this.trim(tableName, after);
    const entries = await this.db
      .iterator({
        ...(after ? { gt: keys.record(tableName, after) } : { gt: keys.first(tableName) }),
        lt: keys.end(tableName),
        limit,
      })
      .all();
    return entries.map(([, value]) => value as StreamRecord);
  }

  /** The newest sequence number of table `tableName`'s records, or undefined when it has none. */
  async latest(tableName: string): Promise<string | undefined> {
    const [newest] = await this.db
      .iterator({ gt: keys.first(tableName), lt: keys.end(tableName), limit: 1, reverse: true })
      .all();
    return newest ? (newest[1] as StreamRecord).dynamodb.SequenceNumber : undefined;
  }

  /** The checkpoint saved under `id` (a sequence number, or '' for "before the first record"), if any. */
  async checkpoint(id: string): Promise<string | undefined> {
    return (await this.getOrUndefined(keys.checkpoint(id))) as string | undefined;
  }

  /** Saves the checkpoint `sequence` under `id`. */
  saveCheckpoint(id: string, sequence: string): Promise<void> {
    return this.db.put(keys.checkpoint(id), sequence);
  }

  /** Removes table `tableName`'s records older than the retention up to `upTo`, if not done in the last minute. */
  private async trim(tableName: string, upTo: string): Promise<void> {
    const now = this.clock();
    if (now - (this.trimmedAt.get(tableName) ?? 0) < Math.min(trimEveryMs, this.retentionMs)) return;
    this.trimmedAt.set(tableName, now);
    const oldest = (now - this.retentionMs) / 1000;
    const expired: LevelOperation[] = [];
    for (;;) {
      const page = await this.db
        .iterator({
          gt: expired.at(-1)?.key ?? keys.first(tableName),
          lte: keys.record(tableName, upTo),
          limit: 100,
        })
        .all();
      const old = page.filter(
        ([, value]) => (value as StreamRecord).dynamodb.ApproximateCreationDateTime < oldest,
      );
      expired.push(...old.map(([key]): LevelOperation => ({ type: 'del', key })));
      if (old.length < page.length || page.length === 0) break;
    }
    if (expired.length > 0) await this.db.batch(expired);
  }

  private async getOrUndefined(key: string): Promise<unknown> {
    try {
      return await this.db.get(key);
    } catch (error) {
      if ((error as { code?: string }).code === 'LEVEL_NOT_FOUND') return undefined;
      if ((error as Error).name === 'NotFoundError') return undefined;
      throw error;
    }
  }
}
