/**
 * DynamoDB stream records (new and old images) of writes the tests make, for the change records' consumer
 * (docs/architecture.md "Change records"): the record format of
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html, as Lambda
 * delivers it (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { type RawItem, scanTable } from './raw-tables.ts';

/** A table whose writes become records: its name and partition key attribute. */
export interface WatchedTable {
  name: string;
  key: string;
}

/** Makes stream records of writes, numbered with increasing sequence numbers above 2^64 (compared as BigInt). */
export interface StreamRecorder {
  /**
   * Runs `write` and answers the records of what it changed in the watched tables (each table's items before
   * and after, compared): INSERT, MODIFY or REMOVE, tables in the order given.
   */
  capture(write: () => Promise<unknown>): Promise<DynamoDBRecord[]>;
  /** One record of `eventName` with the item images given (the key is taken from them). */
  record(
    eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
    key: string,
    old?: RawItem,
    now?: RawItem,
  ): DynamoDBRecord;
}

/** A {@link StreamRecorder} of `tables` through `client`. */
export function streamRecorder(client: DynamoDBClient, tables: readonly WatchedTable[]): StreamRecorder {
  let sequence = 2n ** 64n;
  const snapshot = async () =>
    Promise.all(
      tables.map(
        async ({ name, key }) =>
          new Map((await scanTable(client, name)).map((item) => [JSON.stringify(item[key]), item])),
      ),
    );
  const recorder: StreamRecorder = {
    record(eventName, key, old, now) {
      const keyValue = (now ?? old)?.[key];
      sequence += 1n;
      return {
        eventID: String(sequence),
        eventName,
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'us-east-1',
        dynamodb: {
          ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
          Keys: { [key]: keyValue as AttributeValue },
          ...(now ? { NewImage: now as Record<string, AttributeValue> } : {}),
          ...(old ? { OldImage: old as Record<string, AttributeValue> } : {}),
          SequenceNumber: String(sequence),
          SizeBytes: 100,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      };
    },
    async capture(write) {
      const before = await snapshot();
      await write();
      const after = await snapshot();
      const records: DynamoDBRecord[] = [];
      tables.forEach(({ key }, index) => {
        const old = before[index] as Map<string, RawItem>;
        const now = after[index] as Map<string, RawItem>;
        for (const id of new Set([...old.keys(), ...now.keys()])) {
          const oldItem = old.get(id);
          const newItem = now.get(id);
          if (JSON.stringify(oldItem) === JSON.stringify(newItem)) continue;
          const eventName = oldItem === undefined ? 'INSERT' : newItem === undefined ? 'REMOVE' : 'MODIFY';
          records.push(recorder.record(eventName, key, oldItem, newItem));
        }
      });
      return records;
    },
  };
  return recorder;
}
