/** A stand-in function whose `{petId}` picks what it does (local-aws/behaviour.md). */
import { appendFile } from 'node:fs/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * The Lambda handler (`index.handler`); with `BEHAVIOUR_STARTS` set, it first appends its action and a newline
 * to that file, so a test sees which invocations are running. @throws Error for `throw`; crashes its runtime
 * for `crash`
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const action = event.pathParameters?.petId ?? event.pathParameters?.orderId;
  const starts = process.env.BEHAVIOUR_STARTS;
  if (starts) await appendFile(starts, `${action}\n`);
  if (action === 'throw') throw new Error('boom');
  if (action === 'huge') return { statusCode: 200, body: 'x'.repeat(6_300_000) };
  if (action === 'slow') await new Promise((resolve) => setTimeout(resolve, 40_000));
  if (action === 'crash') {
    // An uncaught exception outside the handler's promise, after 1 s: the runtime crashes mid-invocation.
    setTimeout(() => {
      throw new Error('crash');
    }, 1000);
    await new Promise(() => {});
  }
  const {
    headers,
    multiValueHeaders,
    queryStringParameters,
    multiValueQueryStringParameters,
    pathParameters,
  } = event;
  const seen = {
    headers,
    multiValueHeaders,
    queryStringParameters,
    multiValueQueryStringParameters,
    pathParameters,
  };
  return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(seen) };
}
