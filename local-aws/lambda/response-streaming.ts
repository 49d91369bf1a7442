/**
 * Lambda response streaming as the Node.js runtime provides it (the `awslambda` globals), and the prelude API
 * Gateway reads off a streamed response (STREAM mode): behaviour.md S2.
 */
import type { Writable } from 'node:stream';

/** The mark the runtime puts on a handler wrapped by `streamifyResponse`. */
const streamingMark = Symbol.for('aws.lambda.runtime.handler.streaming');
/** The content type that announces a prelude (what `HttpResponseStream.from` sets). */
export const integrationContentType = 'application/vnd.awslambda.http-integration-response';
/** The 8 NUL bytes that end a prelude. */
const delimiter = Buffer.alloc(8);

/** The response stream a streaming handler writes into. */
export interface ResponseStream extends Writable {
  setContentType(type: string): void;
}

/** A streamed response's prelude (JSON), as `HttpResponseStream.from` writes it. */
export interface Prelude {
  statusCode?: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
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
      /** Writes the prelude (status and headers as JSON) and its 8-NUL delimiter before the body. */
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
 * Splits the bytes received so far of a streamed response into its prelude and the body bytes after it;
 * undefined while the delimiter has not arrived.
 * @throws SyntaxError when the bytes before the delimiter are not JSON
 */
export function splitPrelude(received: Buffer): { prelude: Prelude; rest: Buffer } | undefined {
  const end = received.indexOf(delimiter);
  if (end < 0) return undefined;
  const prelude = JSON.parse(received.subarray(0, end).toString('utf8')) as Prelude;
  return { prelude, rest: received.subarray(end + delimiter.length) };
}
