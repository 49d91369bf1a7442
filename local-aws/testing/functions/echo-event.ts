/**
 * A stand-in Lambda proxy function that answers 200 with the event it received, as JSON (behaviour.md), after
 * `?delayMs=` milliseconds when the query has it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** The Lambda handler (`index.handler`): the body is the received event, `JSON.stringify`'d. */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const delayMs = Number(event.queryStringParameters?.delayMs ?? 0);
  if (delayMs > 0) await sleep(delayMs);
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(event),
  };
}
