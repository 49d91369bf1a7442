/** Starts a proxy to a real DynamoDB that injects the faults a test chooses (docs/contract.md "Errors"). */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { requestTimeoutMs } from '#lib/clients/dynamodb-client.ts';
import { listenOnFreePort } from './free-port.ts';
import { serviceTables, setFunctionEnvironment } from './test-dynamodb.ts';

/**
 * What the proxy does with one request: forward it, answer it with an internal error, answer a BatchWriteItem
 * with every item unprocessed (other operations are forwarded), drop the connection, forward it and
 * withhold the answer (`unanswered`: the write lands, and its caller waits until its own timeout), or cancel a
 * TransactWriteItems as DynamoDB cancels one that met another transaction on an item (`conflict`: nothing written),
 * or forward it and hold its answer {@link lateAnswerMs} (`late`: the write lands, the SDK gives the attempt up
 * at its request timeout and sends it again while others may write the same item).
 */
export type Fault = 'pass' | 'error' | 'unprocessed' | 'down' | 'unanswered' | 'conflict' | 'late';

/** How long a `late` answer is held, in ms: past the service's DynamoDB request timeout (lib/clients/dynamodb-client.ts). */
export const lateAnswerMs = requestTimeoutMs + 500;

/** A running fault proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /**
   * Decides each request from its operation (`X-Amz-Target` without its prefix, e.g. `BatchWriteItem`), the
   * number of BatchWriteItem requests in {@link operations} (this one included) and the tables its body names.
   * Default: always `pass`.
   */
  fault: (operation: string, batchWrites: number, tables: readonly string[]) => Fault;
  /** The operations received, in order; a test may empty it to count afresh. */
  operations: string[];
  /** Every request from now on fails with an internal error. */
  fail(): void;
  /** Requests are forwarded again. */
  restore(): void;
  /**
   * Opens a window for another writer on the next `late` answer: once the store has answered that write (it is
   * committed) {@link RetryWindow.committed} is true, and the SDK's retries of that call (the requests with its
   * `amz-sdk-invocation-id`, which the SDK keeps for every attempt of one call) wait until the window closes.
   */
  openWindow(): RetryWindow;
  close(): Promise<void>;
}

/** A window between a late write's commit and its retry (see {@link FaultProxy.openWindow}). */
export interface RetryWindow {
  /** True once the late write is committed. */
  committed(): boolean;
  /** Lets the held retries through. */
  close(): void;
}

/** The proxy's open window: the call it holds (once a late answer took it) and what it waits on. */
interface OpenWindow {
  call?: string;
  committed: boolean;
  closed: Promise<void>;
  close(): void;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const internalError = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  message: 'fault',
});

/** The tables a request body names: `TableName` anywhere in it, and the keys of a batch's `RequestItems`. */
function tablesOf(body: string): string[] {
  const named = [...body.matchAll(/"TableName":"([^"]+)"/g)].map((match) => match[1] as string);
  try {
    return [...named, ...Object.keys((JSON.parse(body) as { RequestItems?: object }).RequestItems ?? {})];
  } catch {
    return named;
  }
}

/**
 * Reads `answer` at once (then `window`, if any, is committed) and sends it on `outgoing` {@link lateAnswerMs}
 * later, if its caller still waits.
 */
async function holdAnswer(
  answer: IncomingMessage,
  outgoing: ServerResponse,
  window?: OpenWindow,
): Promise<void> {
  const body = await bodyOf(answer);
  if (window) window.committed = true;
  await sleep(lateAnswerMs);
  if (outgoing.destroyed) return;
  outgoing.writeHead(answer.statusCode ?? 500, answer.headers).end(body);
}

/**
 * Starts a {@link FaultProxy} in front of the DynamoDB API at `target`.
 *
 * A DynamoDB endpoint in front of a real DynamoDB API that forwards every request until a test chooses a fault,
 * and then produces the faults real DynamoDB shows and the local APIs cannot: an internal error on the wire
 * (HTTP 500, `x-amzn-ErrorType: InternalServerError`, JSON 1.0 error body), a BatchWriteItem answered with
 * every item unprocessed (HTTP 200, nothing written, as DynamoDB answers a throttled batch), a dropped
 * connection (DynamoDB lost mid-way), a write applied whose answer never comes (the caller dies or times out
 * between the commit and its answer), or one whose answer comes after the caller's request timeout (the SDK
 * retries a write that committed). It stores and reads nothing itself: what is stored is what the real API
 * stored.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const proxy: FaultProxy = {
    endpoint: '',
    fault: () => 'pass',
    operations: [],
    fail() {
      proxy.fault = () => 'error';
    },
    restore() {
      proxy.fault = () => 'pass';
    },
    openWindow() {
      let close = () => {};
      const closed = new Promise<void>((resolve) => {
        close = resolve;
      });
      const opened: OpenWindow = {
        committed: false,
        closed,
        close: () => {
          if (window === opened) window = undefined;
          close();
        },
      };
      window = opened;
      return { committed: () => opened.committed, close: opened.close };
    },
    close: async () => {},
  };
  let window: OpenWindow | undefined;
  const server = createServer(async (incoming, outgoing) => {
    const call = String(incoming.headers['amz-sdk-invocation-id'] ?? '');
    const body = await bodyOf(incoming);
    // A retry of the call whose window is open goes on once the window closes.
    if (window?.call !== undefined && window.call === call) await window.closed;
    const operation = String(incoming.headers['x-amz-target'] ?? '').replace(/^DynamoDB_20120810\./, '');
    proxy.operations.push(operation);
    const fault = proxy.fault(
      operation,
      proxy.operations.filter((o) => o === 'BatchWriteItem').length,
      tablesOf(body.toString('utf8')),
    );
    if (fault === 'down') {
      incoming.socket.destroy();
      return;
    }
    if (fault === 'error') {
      outgoing
        .writeHead(500, {
          'Content-Type': 'application/x-amz-json-1.0',
          'x-amzn-ErrorType': 'InternalServerError',
        })
        .end(internalError);
      return;
    }
    if (fault === 'conflict' && operation === 'TransactWriteItems') {
      const { TransactItems } = JSON.parse(body.toString('utf8')) as { TransactItems: unknown[] };
      const reasons = TransactItems.map((_, index) => ({
        Code: index === 0 ? 'TransactionConflict' : 'None',
      }));
      const answer = JSON.stringify({
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        message:
          'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
        CancellationReasons: reasons,
      });
      outgoing
        .writeHead(400, {
          'Content-Type': 'application/x-amz-json-1.0',
          'x-amzn-ErrorType': 'TransactionCanceledException',
          'Content-Length': Buffer.byteLength(answer),
        })
        .end(answer);
      return;
    }
    if (fault === 'unprocessed' && operation === 'BatchWriteItem') {
      const { RequestItems } = JSON.parse(body.toString('utf8')) as { RequestItems: unknown };
      const answer = JSON.stringify({ UnprocessedItems: RequestItems });
      outgoing
        .writeHead(200, {
          'Content-Type': 'application/x-amz-json-1.0',
          'Content-Length': Buffer.byteLength(answer),
        })
        .end(answer);
      return;
    }
    // The window of a late answer holds the retries of its call.
    const held = fault === 'late' && call !== '' && window?.call === undefined ? window : undefined;
    if (held) held.call = call;
    const forwarded = httpRequest(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        // The request was applied; its caller never hears of it (the connection stays open until it leaves).
        if (fault === 'unanswered') return void answer.resume();
        if (fault === 'late') return void holdAnswer(answer, outgoing, held);
        outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    forwarded.end(body);
  });
  ({ endpoint: proxy.endpoint, close: proxy.close } = await listenOnFreePort(server));
  return proxy;
}

/**
 * For a handler test's `beforeAll`: a test DynamoDB with a {@link FaultProxy} in front, this process's functions
 * pointed at the proxy (import the handler modules after this). The caller closes both in `afterAll`.
 */
export async function proxiedTestDynamoDb(): Promise<{ db: TestStore; proxy: FaultProxy }> {
  const db = await startTestStore({ tables: serviceTables });
  const proxy = await startFaultProxy(db.endpoint);
  setFunctionEnvironment(proxy.endpoint, db.credentials);
  return { db, proxy };
}
