/**
 * The partial batch response of an SQS consumer (fanOutWebhooks, deliverWebhooks), with Powertools' batch
 * utility: every record handled in parallel, the ones whose handler threw named in `batchItemFailures` for the
 * event source mapping to see again (ReportBatchItemFailures,
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html), the others deleted by it.
 * @see https://docs.aws.amazon.com/powertools/typescript/latest/features/batch/
 * @module
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** Thrown by a record's handler for a message to be seen again later without being an error (a retry). */
export class SeeAgainLater extends Error {
  override readonly name = 'SeeAgainLater';
}

const processor = new BatchProcessor(EventType.SQS);

/**
 * Handles every record of `event` with `handleRecord` in parallel. A record whose handler throws is reported
 * failed; `onError` is told of each error other than {@link SeeAgainLater}. A batch whose every record failed is
 * answered as such, not thrown: a function error would bring every message back only after the queue's
 * visibility timeout, not after the delays the handlers set.
 */
export async function processSqsBatch(
  event: SQSEvent,
  handleRecord: (record: SQSRecord) => Promise<void>,
  onError: (record: SQSRecord, error: unknown) => void,
): Promise<SQSBatchResponse> {
  return processPartialResponse(
    event,
    async (record: SQSRecord) => {
      try {
        await handleRecord(record);
      } catch (error) {
        if (!(error instanceof SeeAgainLater)) onError(record, error);
        throw error;
      }
    },
    processor,
    { throwOnFullBatchFailure: false },
  );
}
