/** A Lambda `Context` for handlers invoked by the local API. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** Milliseconds a local invocation may run, as reported by `getRemainingTimeInMillis`. */
const timeoutMs = 10_000;

/** A fresh context for one invocation of the function `functionName`, with a new request id. */
export function lambdaContext(functionName: string): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    awsRequestId: randomUUID(),
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
