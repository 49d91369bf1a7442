/**
 * A stand-in API function whose `{action}` path parameter picks what it does (behaviour.md S2-S7, S12, L1):
 * `throw` throws, `huge` returns a body over Lambda's 6 MB, `slow` waits 40 s, `pause` waits 1 s, `hold` waits
 * until the file `LIMITS_RELEASE` names exists, `crash` crashes its runtime mid-invocation; anything else answers
 * 200 at once. An answer is 200 with the path parameters and the request body's length.
 */
import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * The Lambda handler (`index.handler`); with `LIMITS_STARTS` set, it appends its action and a newline to that
 * file as it starts, and `<action> done` as it answers, so a test sees which invocations ran when.
 * @throws Error for `throw`; crashes its runtime for `crash`
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const action = event.pathParameters?.action ?? '';
  const starts = process.env.LIMITS_STARTS;
  if (starts) await appendFile(starts, `${action}\n`);
  if (action === 'throw') throw new Error('asked to throw');
  if (action === 'huge') return { statusCode: 200, body: 'x'.repeat(6_300_000) };
  if (action === 'slow') await new Promise((resolve) => setTimeout(resolve, 40_000));
  if (action === 'pause') await new Promise((resolve) => setTimeout(resolve, 1_000));
  while (action === 'hold' && !existsSync(process.env.LIMITS_RELEASE as string)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (action === 'crash') {
    // An uncaught exception outside the handler's promise, after 1 s: the runtime crashes mid-invocation.
    setTimeout(() => {
      throw new Error('crash');
    }, 1_000);
    await new Promise(() => {});
  }
  if (starts) await appendFile(starts, `${action} done\n`);
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ pathParameters: event.pathParameters, bodyLength: event.body?.length ?? 0 }),
  };
}
