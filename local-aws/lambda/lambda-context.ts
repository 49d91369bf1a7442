/** The Lambda `Context` a handler gets, built once for the local runtime (lambda-worker.ts) and the tests. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** What one invocation's context is made of; each field defaults as a plain local invocation. */
export interface InvocationDetails {
  /** The request id (default: a fresh UUID). */
  requestId?: string;
  /** Epoch milliseconds at which the function times out (default: 10 s from now). */
  deadline?: number;
  /** The function's `MemorySize` in MB (default 256). */
  memoryMb?: number;
}

/** Milliseconds an invocation may run when no deadline is given. */
const defaultTimeoutMs = 10_000;

/**
 * A context for one invocation of the function `functionName` (its ARN in `AWS_REGION`, account 000000000000);
 * `getRemainingTimeInMillis` counts down to the deadline.
 */
export function lambdaContext(functionName: string, details: InvocationDetails = {}): Context {
  const { requestId = randomUUID(), deadline = Date.now() + defaultTimeoutMs, memoryMb = 256 } = details;
  return {
    awsRequestId: requestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION ?? 'us-east-1'}:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${randomUUID()}`,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
