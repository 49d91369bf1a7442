/**
 * @module A message of a local queue as the queues hold it and their journal keeps it (behaviour.md Q1-Q10): the
 * type both sqs/queues.ts and sqs/queue-journal.ts use, so that neither imports the other for it.
 */

/** A message of a queue and its system attributes. */
export interface QueueMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  /** Epoch ms of the send (`SentTimestamp`); kept when redriven to the dead-letter queue. */
  sentTimestamp: number;
  /** `ApproximateReceiveCount`: receives so far. */
  receiveCount: number;
  /** `ApproximateFirstReceiveTimestamp`, epoch ms, once received. */
  firstReceiveTimestamp?: number;
  /** Epoch ms from which it can be received (after its delay, or its visibility timeout). */
  visibleAt: number;
  /** The receipt handle of its latest receive; undefined before the first. */
  receiptHandle?: string;
  /** `SenderId`: the access key id that sent it. */
  senderId: string;
  /** `MessageGroupId`: its tenant in a fair queue (behaviour.md Q10); absent, it is a tenant of its own. */
  messageGroupId?: string;
  /** Epoch ms of its latest receive while that receive is being processed (its tenant's consumer time). */
  receivedAt?: number;
}
