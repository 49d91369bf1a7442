/**
 * The partial batch response of an SQS consumer (fanOutWebhooks), with Powertools' batch utility: every record handled in parallel, the ones whose handler threw named in `batchItemFailures` for the
 * event source mapping to see again (ReportBatchItemFailures,
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html), the others deleted by it.
 * @see https://docs.aws.amazon.com/powertools/typescript/latest/features/batch/
 * @module
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

const processor = new BatchProcessor(EventType.SQS);

/**
 * Handles every record of `event` with `handleRecord` in parallel. A record whose handler throws is reported
 * failed and `onError` is told. A batch whose every record failed is answered as such, not thrown: a function
 * error would bring back the records that succeeded too.
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
        onError(record, error);
        throw error;
      }
    },
    processor,
    { throwOnFullBatchFailure: false },
  );
}
