/**
 * A stand-in consumer of a DynamoDB stream (test/stream-mapping.test.ts, and a served stack's): appends one line per invocation to the file named by `STREAM_LOG` (the
 * batch's sequence numbers, event names and items' `action`, and the DynamoDB endpoint it was given), then acts
 * on the `action` attribute of each record's new image: `throw` throws, `fail` reports the record as a batch item
 * failure (ReportBatchItemFailures), `slow` takes 1 s first; anything else succeeds. With `STREAM_ACCEPT_ALL`
 * set to `true` every batch succeeds.
 */
import { appendFileSync } from 'node:fs';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

/** The Lambda handler (`index.handler`). @throws Error when a record's action is `throw` */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const acceptAll = process.env.STREAM_ACCEPT_ALL === 'true';
  const actions = event.Records.map((record) =>
    acceptAll ? '' : (record.dynamodb?.NewImage?.action?.S ?? ''),
  );
  appendFileSync(
    process.env.STREAM_LOG as string,
    `${JSON.stringify({
      sequences: event.Records.map((record) => record.dynamodb?.SequenceNumber),
      actions,
      eventNames: event.Records.map((record) => record.eventName),
      endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
    })}\n`,
  );
  if (actions.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 1000));
  if (actions.includes('throw')) throw new Error('poison record');
  return {
    batchItemFailures: event.Records.flatMap((record, at) =>
      actions[at] === 'fail' ? [{ itemIdentifier: record.dynamodb?.SequenceNumber as string }] : [],
    ),
  };
}
