/**
 * Invoking a handler in this process as the Lambda runtime does, its streamed response read as API Gateway
 * reads it (local-aws/behaviour.md S2). Call `installStreamingRuntime` before importing a handler.
 */
import { PassThrough, Writable } from 'node:stream';
import type { Context } from 'aws-lambda';
import type { ResponseStream } from 'local-aws';
import { integrationContentType, isStreamingHandler, splitPrelude } from 'local-aws/testing';

export { installStreamingRuntime, lambdaContext, type ResponseStream } from 'local-aws';

/** Status and headers of a streamed response, from its prelude. */
export interface StreamedHead {
  statusCode: number;
  headers: Record<string, string | string[]>;
}

/**
 * A response stream that hands `onHead` the prelude once its delimiter arrives, then passes the body to
 * `target` (with its backpressure) and ends `target` when the handler ends the stream.
 * @throws (through the stream) when the handler writes a body without a prelude
 */
function responseSink(target: Writable, onHead: (head: StreamedHead) => void): ResponseStream {
  let contentType: string | undefined;
  let received: Buffer | undefined = Buffer.alloc(0);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (received === undefined) {
        if (target.write(chunk)) callback();
        else target.once('drain', () => callback());
        return;
      }
      if (contentType !== integrationContentType) return callback(new Error('response without a prelude'));
      received = Buffer.concat([received, chunk]);
      const split = splitPrelude(received);
      if (!split) return callback();
      const { statusCode, headers = {}, multiValueHeaders = {} } = split.prelude;
      received = undefined;
      onHead({ statusCode: statusCode as number, headers: { ...headers, ...multiValueHeaders } });
      if (split.rest.length === 0 || target.write(split.rest)) callback();
      else target.once('drain', () => callback());
    },
    final(callback) {
      if (received !== undefined) return callback(new Error('response ended before its prelude'));
      target.end(callback);
    },
  }) as ResponseStream;
  sink.setContentType = (type) => {
    contentType = type;
  };
  return sink;
}

/** What a client receives from a streaming function: `complete` is false when the stream was cut. */
export interface StreamedResult extends StreamedHead {
  body: string;
  complete: boolean;
}

/**
 * Invokes a streaming handler (after `installStreamingRuntime`) with a response stream read as API
 * Gateway reads it, and collects what it wrote. A handler that fails after its prelude went out gives
 * `complete: false` with the body written so far; one that fails before rejects. `onHead` runs when the
 * prelude arrives.
 */
export async function collectStreamed(
  invoke: (stream: ResponseStream) => Promise<unknown>,
  onHead: () => void = () => {},
): Promise<StreamedResult> {
  let head: StreamedHead | undefined;
  const chunks: Buffer[] = [];
  const body = new PassThrough();
  body.on('data', (chunk: Buffer) => chunks.push(chunk));
  const sink = responseSink(body, (prelude) => {
    head = prelude;
    onHead();
  });
  const failure = await invoke(sink).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!head) throw failure ?? new Error('the handler wrote no prelude');
  return { ...head, body: Buffer.concat(chunks).toString('utf8'), complete: failure === undefined };
}

/**
 * Invokes `handler` once as the runtime would: `handler(event, responseStream, context)` for a streaming
 * handler (its response collected), else `handler(event, context)`; resolves with what it gave.
 */
export function invokeHandler(handler: unknown, event: unknown, context: Context): Promise<unknown> {
  const invoke = handler as (...args: unknown[]) => Promise<unknown>;
  return isStreamingHandler(handler)
    ? collectStreamed((stream) => invoke(event, stream, context))
    : invoke(event, context);
}
