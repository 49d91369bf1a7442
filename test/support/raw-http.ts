/** HTTP requests sent exactly as written (docs/contract.md "Requests as API Gateway delivers them"). */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { retryConnectionErrors } from './connection-retries.ts';
import type { TimeWindow } from './raw-tables.ts';

/** One request: headers as ordered `[name, value]` pairs, sent as given (duplicates kept). */
export interface RawRequest {
  method: string;
  /** Path under the client's base URL (for example `/inventory/7`), sent byte for byte. */
  path: string;
  headers?: readonly (readonly [string, string])[];
  body?: string | Uint8Array;
}

/** A response as the client received it. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body decoded as UTF-8 (empty when there is none). */
  text: string;
  /** When the request was sent and when its whole answer was read: epoch milliseconds of this machine's clock. */
  window: TimeWindow;
}

/** A client for one base URL (`http://host:port/v1`), keeping connections alive between requests. */
export interface RawClient {
  send(request: RawRequest): Promise<RawResponse>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/**
 * Creates a {@link RawClient} for `baseUrl` (an origin alone, or with a path prefix). A `Host` header is added
 * first; `Content-Length` is added by Node when a body is given. `maxSockets` bounds the connections used by
 * concurrent requests; `keepAlive` false opens a new connection for every request. `retryConnectionErrors`
 * sends a request again when its connection fails before an answer (connection-retries.ts), as a client would
 * for the hundreds of connections some suites open at once; its `window` starts at the first attempt.
 */
export function rawClient(
  baseUrl: string,
  options: { maxSockets?: number; keepAlive?: boolean; retryConnectionErrors?: boolean } = {},
): RawClient {
  const url = new URL(baseUrl);
  const prefix = url.pathname === '/' ? '' : url.pathname;
  const agent = new Agent({ keepAlive: options.keepAlive ?? true, maxSockets: options.maxSockets ?? 16 });
  const sendOnce = ({ method, path, headers = [], body }: RawRequest, from: number) => {
    const flat = ['Host', url.host, ...headers.flat()];
    return new Promise<RawResponse>((resolve, reject) => {
      const outgoing = httpRequest(
        { agent, host: url.hostname, port: url.port, method, path: prefix + path, headers: flat },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              text: Buffer.concat(chunks).toString('utf8'),
              window: { from, to: Date.now() },
            }),
          );
          // An answer cut short is final: no code, so never retried.
          incoming.on('error', (error) => reject(new Error(`answer cut short: ${error.message}`)));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
  return {
    send(request) {
      const from = Date.now();
      return options.retryConnectionErrors
        ? retryConnectionErrors(() => sendOnce(request, from))
        : sendOnce(request, from);
    },
    close() {
      agent.destroy();
    },
  };
}

/**
 * Registers the file's hooks: a {@link rawClient} of `api`'s base URL with `options`, made once `api` has one
 * (after `testApiSuite`'s start) and closed after the file's tests.
 */
export function rawClientSuite(
  api: { baseUrl: string },
  options: Parameters<typeof rawClient>[1] = {},
): RawClient {
  let client: RawClient | undefined;
  beforeAll(() => {
    client = rawClient(api.baseUrl, options);
  });
  afterAll(() => client?.close());
  return {
    send: (request) => (client as RawClient).send(request),
    close: () => client?.close(),
  };
}

/**
 * `method path` with the headers of a valid JSON request, in this order: `Authorization: <authorization>`,
 * `Content-Type: application/json`, then `headers`; the body is sent as given.
 */
export function sendJson(
  client: RawClient,
  authorization: string,
  method: string,
  path: string,
  body: string | Uint8Array,
  headers: readonly (readonly [string, string])[] = [],
): Promise<RawResponse> {
  return client.send({
    method,
    path,
    headers: [['Authorization', authorization], ['Content-Type', 'application/json'], ...headers],
    body,
  });
}

/** `PATCH <path>` with the headers of a valid update ({@link sendJson}) and the body as given. */
export function sendJsonPatch(
  client: RawClient,
  authorization: string,
  path: string,
  body: string | Uint8Array,
): Promise<RawResponse> {
  return sendJson(client, authorization, 'PATCH', path, body);
}
