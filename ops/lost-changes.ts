/**
 * @module The change records lost after the stream's retries, as the webhook tool's `lost` lists them: the
 * stream mappings' on-failure records (read from the failure queue, left in it) and, for the inventory stream,
 * the pets whose history shows the break over each lost range. docs/operating.md "Lost change records".
 */
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { StreamFailureRecord } from 'local-aws';

/** One discarded batch: where it was in the stream, when, and the pets whose next record shows the break. */
export interface LostBatch {
  /** The table whose stream held the records (the stream mappings read the inventory's and the orders'). */
  table: 'inventory' | 'orders';
  /** Why Lambda gave the batch up (`RecordAgeExceeded`: the records expired still failing). */
  condition: string;
  shardId: string;
  /** The first and last stream sequence numbers of the lost records (decimal digits). */
  startSequenceNumber: string;
  endSequenceNumber: string;
  /** RFC 3339: when the first and the last record reached the stream, and when the batch was given up. */
  firstRecordAt: string;
  lastRecordAt: string;
  discardedAt: string;
  /** Stream records in the batch (changes and non-changes alike). */
  batchSize: number;
  /**
   * Inventory only: the pets whose records before and after the range disagree (the next record's `from` is
   * not the previous one's `to`), with the sequence after which the break lies. A pet with no record since the
   * loss is not listed yet.
   */
  pets: { petId: string; afterSequence: number }[];
}

/** Longest ReceiveMessage wait and batch: SQS's limits (10 messages). */
const receiveBatch = 10;
/** Seconds each message stays hidden while the listing runs, so that it sees each message once. */
const listingVisibilitySeconds = 60;

/**
 * Every on-failure record in the queue `url`, oldest discard first: ReceiveMessage until the queue answers
 * none, each message hidden while the listing runs, then visible again (ChangeMessageVisibility 0): the
 * messages stay, and so does the alarm on them, until an operator purges the queue.
 * @throws Error when a message is not a stream mapping's on-failure record; any SQS error.
 */
export async function failureRecords(sqs: SQSClient, url: string): Promise<StreamFailureRecord[]> {
  const records = new Map<string, StreamFailureRecord>();
  const receipts: string[] = [];
  try {
    await receiveAll(sqs, url, records, receipts);
  } finally {
    for (const ReceiptHandle of receipts) {
      await sqs.send(
        new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle, VisibilityTimeout: 0 }),
      );
    }
  }
  return [...records.values()].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}

/** Receives every message of `url` once into `records` (by message id), keeping each receipt handle. */
async function receiveAll(
  sqs: SQSClient,
  url: string,
  records: Map<string, StreamFailureRecord>,
  receipts: string[],
): Promise<void> {
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: receiveBatch,
        VisibilityTimeout: listingVisibilitySeconds,
        WaitTimeSeconds: 0,
      }),
    );
    receipts.push(...Messages.flatMap((message) => (message.ReceiptHandle ? [message.ReceiptHandle] : [])));
    const fresh = Messages.filter((message) => !records.has(message.MessageId ?? ''));
    if (fresh.length === 0) return;
    for (const message of fresh) {
      const record = JSON.parse(message.Body ?? 'null') as StreamFailureRecord | null;
      if (!record?.DDBStreamBatchInfo) {
        throw new Error(`message ${message.MessageId} is not a stream mapping's on-failure record`);
      }
      records.set(message.MessageId ?? '', record);
    }
  }
}

/** A history item's members the break needs (numbers as the document client reads them). */
interface HistoryLink {
  petId: string;
  sequence: number;
  streamSequence: bigint;
  quantity: { from: string | null; to: string };
  status: { from: string | null; to: string };
}

/** Every history item as a {@link HistoryLink}, each pet's in sequence order: a paginated Scan. */
async function historyLinks(client: DynamoDBDocumentClient, tableName: string): Promise<HistoryLink[][]> {
  const byPet = new Map<string, HistoryLink[]>();
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  for await (const page of paginateScan(
    { client },
    {
      TableName: tableName,
      ProjectionExpression: 'petId, #sequence, streamSequence, quantity, #status',
      ExpressionAttributeNames: { '#sequence': 'sequence', '#status': 'status' },
    },
  )) {
    for (const item of page.Items ?? []) {
      const link: HistoryLink = {
        petId: String(item.petId),
        sequence: Number(String(item.sequence)),
        streamSequence: BigInt(item.streamSequence as string),
        quantity: { from: text(item.quantity?.from), to: String(item.quantity?.to) },
        status: { from: text(item.status?.from), to: String(item.status?.to) },
      };
      byPet.set(link.petId, [...(byPet.get(link.petId) ?? []), link]);
    }
  }
  return [...byPet.values()].map((links) => links.sort((a, b) => a.sequence - b.sequence));
}

/** The table of a stream ARN (`arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`). */
function tableOf(streamArn: string, inventoryTable: string): LostBatch['table'] {
  return /:table\/([^/]+)\/stream\//.exec(streamArn)?.[1] === inventoryTable ? 'inventory' : 'orders';
}

/**
 * The lost batches of `records`, each inventory one with the pets whose history shows the break over its range:
 * a record made from a stream record before the range followed by one made after it, whose `quantity.from` or
 * `status.from` is not the first one's `to` (docs/architecture.md "Change records": "A change lost after all").
 */
export async function lostBatches(
  records: readonly StreamFailureRecord[],
  history: { client: DynamoDBDocumentClient; tableName: string },
  inventoryTable: string,
): Promise<LostBatch[]> {
  const batches = records.map((record) => ({
    record,
    table: tableOf(record.DDBStreamBatchInfo.streamArn, inventoryTable),
  }));
  const links = batches.some(({ table }) => table === 'inventory')
    ? await historyLinks(history.client, history.tableName)
    : [];
  return batches.map(({ record, table }) => {
    const info = record.DDBStreamBatchInfo;
    const start = BigInt(info.startSequenceNumber);
    const end = BigInt(info.endSequenceNumber);
    const pets: LostBatch['pets'] = [];
    if (table === 'inventory') {
      for (const chain of links) {
        for (let at = 1; at < chain.length; at++) {
          const before = chain[at - 1] as HistoryLink;
          const after = chain[at] as HistoryLink;
          const straddles = before.streamSequence < start && after.streamSequence > end;
          const broken = after.quantity.from !== before.quantity.to || after.status.from !== before.status.to;
          if (straddles && broken) pets.push({ petId: after.petId, afterSequence: before.sequence });
        }
      }
    }
    return {
      table,
      condition: record.requestContext.condition,
      shardId: info.shardId,
      startSequenceNumber: info.startSequenceNumber,
      endSequenceNumber: info.endSequenceNumber,
      firstRecordAt: info.approximateArrivalOfFirstRecord,
      lastRecordAt: info.approximateArrivalOfLastRecord,
      discardedAt: record.timestamp,
      batchSize: info.batchSize,
      pets,
    };
  });
}
