/** One local Lambda execution environment in a worker thread, started by lambda-runtime.ts. */
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { lambdaContext } from './lambda-context.ts';
import { installStreamingRuntime, isStreamingHandler } from './response-streaming.ts';

/** What the worker is started with. */
export interface WorkerData {
  /** Absolute path of the handler's module. */
  module: string;
  /** The handler's export name (`index.handler` -> `handler`). */
  exportName: string;
  functionName: string;
  memoryMb: number;
  /** Bytes of a streamed response posted and not yet acknowledged, at most (lambda-runtime.ts). */
  streamWindowBytes: number;
}

/** One invocation, sent by the parent. */
export interface InvokeMessage {
  type: 'invoke';
  id: number;
  event: unknown;
  requestId: string;
  /** Epoch milliseconds at which the function times out. */
  deadline: number;
}

/** Sent by the parent when `bytes` more of invocation `id`'s streamed response have left for the client. */
export interface AckMessage {
  type: 'ack';
  id: number;
  bytes: number;
}

/** What the parent sends. */
export type ParentMessage = InvokeMessage | AckMessage;

/**
 * What the worker tells: that its module is imported (the end of its Init phase), then per invocation a buffered
 * result (JSON text), a function error, or a response stream's parts.
 */
export type WorkerMessage =
  | { type: 'ready' }
  | { id: number; type: 'result'; payload: string }
  | { id: number; type: 'error'; errorType: string; errorMessage: string }
  | { id: number; type: 'chunk'; data: Uint8Array }
  | { id: number; type: 'end' };

/**
 * A response stream as the runtime hands it to a streaming handler: writes go to the parent in order, and
 * complete only while less than `streamWindowBytes` await the parent's acknowledgement.
 */
class ResponseStream extends Writable {
  contentType = 'application/octet-stream';
  readonly id: number;
  private unacknowledged = 0;
  private blocked: (() => void) | undefined;
  constructor(id: number) {
    super();
    this.id = id;
  }
  setContentType(contentType: string): void {
    this.contentType = contentType;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    post({ id: this.id, type: 'chunk', data: new Uint8Array(chunk) });
    this.unacknowledged += chunk.length;
    if (this.unacknowledged < data.streamWindowBytes) callback();
    else this.blocked = callback;
  }
  /** Counts `bytes` as taken by the parent; resumes a waiting write once the window has room. */
  acknowledge(bytes: number): void {
    this.unacknowledged -= bytes;
    const blocked = this.blocked;
    if (blocked && this.unacknowledged < data.streamWindowBytes) {
      this.blocked = undefined;
      blocked();
    }
  }
}

installStreamingRuntime();

function post(message: WorkerMessage): void {
  parentPort?.postMessage(message);
}

const data = workerData as WorkerData;
type Handler = (...args: unknown[]) => Promise<unknown>;
const imported = (await import(pathToFileURL(data.module).href)) as Record<string, unknown>;
const handler = imported[data.exportName] as Handler | undefined;
post({ type: 'ready' });
/** The response stream of the invocation running, if it streams. */
let responding: ResponseStream | undefined;

function context(message: InvokeMessage) {
  return lambdaContext(data.functionName, {
    requestId: message.requestId,
    deadline: message.deadline,
    memoryMb: data.memoryMb,
  });
}

function errorMessage(id: number, error: unknown): WorkerMessage {
  const thrown = error instanceof Error ? error : new Error(String(error));
  return { id, type: 'error', errorType: thrown.name || 'Error', errorMessage: thrown.message };
}

async function invoke(message: InvokeMessage): Promise<void> {
  if (typeof handler !== 'function') {
    post({
      id: message.id,
      type: 'error',
      errorType: 'Runtime.HandlerNotFound',
      errorMessage: `${data.module}.${data.exportName} is undefined or not exported`,
    });
    return;
  }
  if (isStreamingHandler(handler)) {
    const stream = new ResponseStream(message.id);
    responding = stream;
    const finished = new Promise<void>((resolve, reject) => {
      stream.once('finish', resolve);
      stream.once('error', reject);
    });
    try {
      await handler(message.event, stream, context(message));
      if (!stream.writableEnded) stream.end();
      await finished;
      post({ id: message.id, type: 'end' });
    } catch (error) {
      post(errorMessage(message.id, error));
    }
    return;
  }
  try {
    const result = await handler(message.event, context(message));
    post({ id: message.id, type: 'result', payload: JSON.stringify(result ?? null) });
  } catch (error) {
    post(errorMessage(message.id, error));
  }
}

parentPort?.on('message', (message: ParentMessage) => {
  if (message.type === 'invoke') void invoke(message);
  else if (responding?.id === message.id) responding.acknowledge(message.bytes);
});
