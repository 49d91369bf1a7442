/** Lambda response streaming as the Node.js runtime provides it, read as API Gateway does (STREAM mode). */
import { PassThrough, Writable } from 'node:stream';

/** The mark the runtime puts on a handler wrapped by `streamifyResponse`. */
const streamingMark = Symbol.for('aws.lambda.runtime.handler.streaming');
/** The content type that announces a prelude. */
const integrationContentType = 'application/vnd.awslambda.http-integration-response';
const delimiter = Buffer.alloc(8);

/** Status and headers of a streamed response, from its prelude. */
export interface StreamedHead {
  statusCode: number;
  headers: Record<string, string | string[]>;
}

/** The response stream a streaming handler writes into. */
export interface ResponseStream extends Writable {
  setContentType(type: string): void;
}

/**
 * Gives the `awslambda` global the runtime's streaming members when they are missing (other libraries, such
 * as the SDK's invoke store, create the object with members of their own); call it before importing a handler.
 */
export function installStreamingRuntime(): void {
  const global = globalThis as { awslambda?: Record<string, unknown> };
  global.awslambda ??= {};
  if (typeof global.awslambda.streamifyResponse === 'function') return;
  Object.assign(global.awslambda, {
    streamifyResponse<H extends object>(handler: H): H {
      Object.defineProperty(handler, streamingMark, { value: 'response' });
      return handler;
    },
    HttpResponseStream: {
      from(stream: ResponseStream, prelude: object): ResponseStream {
        stream.setContentType(integrationContentType);
        stream.write(JSON.stringify(prelude));
        stream.write(delimiter);
        return stream;
      },
    },
  });
}

/** True when `handler` was wrapped by `awslambda.streamifyResponse`. */
export function isStreamingHandler(handler: unknown): boolean {
  return (handler as Record<symbol, unknown>)?.[streamingMark] === 'response';
}

/**
 * A response stream that hands `onHead` the prelude once its delimiter arrives, then passes the body to
 * `target` (with its backpressure) and ends `target` when the handler ends the stream.
 * @throws (through the stream) when the handler writes a body without a prelude
 */
export function responseSink(target: Writable, onHead: (head: StreamedHead) => void): ResponseStream {
  let contentType: string | undefined;
  let prelude: Buffer | undefined = Buffer.alloc(0);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (prelude === undefined) {
        if (target.write(chunk)) callback();
        else target.once('drain', () => callback());
        return;
      }
      if (contentType !== integrationContentType) return callback(new Error('response without a prelude'));
      prelude = Buffer.concat([prelude, chunk]);
      const end = prelude.indexOf(delimiter);
      if (end < 0) return callback();
      const {
        statusCode,
        headers = {},
        multiValueHeaders = {},
      } = JSON.parse(prelude.subarray(0, end).toString());
      const rest = prelude.subarray(end + delimiter.length);
      prelude = undefined;
      onHead({ statusCode, headers: { ...headers, ...multiValueHeaders } });
      if (rest.length === 0 || target.write(rest)) callback();
      else target.once('drain', () => callback());
    },
    final(callback) {
      if (prelude !== undefined) return callback(new Error('response ended before its prelude'));
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
 * Invokes a streaming handler (after {@link installStreamingRuntime}) with a response stream read as API
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
