/**
 * A DynamoDB endpoint that forwards every request to a real DynamoDB API until the test calls `fail()`, and
 * from then on answers each request as DynamoDB answers an internal error on the wire (HTTP 500,
 * `x-amzn-ErrorType: InternalServerError`, JSON 1.0 error body) until `restore()`. It stores and reads nothing itself: it
 * produces the one fault, a database lost in the middle of a request's work, that the real APIs cannot.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running fault proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Every request from now on fails. */
  fail(): void;
  /** Requests are forwarded again. */
  restore(): void;
  close(): Promise<void>;
}

/** Starts a {@link FaultProxy} in front of the DynamoDB API at `target`. */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  let failing = false;
  const server = createServer((incoming, outgoing) => {
    if (failing) {
      incoming.resume();
      outgoing
        .writeHead(500, {
          'Content-Type': 'application/x-amz-json-1.0',
          'x-amzn-ErrorType': 'InternalServerError',
        })
        .end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
            message: 'fault',
          }),
        );
      return;
    }
    const forwarded = httpRequest(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fail() {
      failing = true;
    },
    restore() {
      failing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
