/** The local API's HTTP server; Node's refusals get the Error body: behaviour.md G2. */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayResponseModel } from '../template/api-model.ts';
import {
  defaultErrorBody,
  type ErrorBodyRenderer,
  renderGatewayResponse,
} from './gateway-response-render.ts';

const malformed = 'malformed HTTP request';
const badHost = 'malformed HTTP request: exactly one Host header with a valid host is required';

/**
 * RFC 9112 section 3.2's `Host = uri-host [ ":" port ]` (RFC 3986 section 3.2.2: an IP literal in brackets, or a
 * registered name or IPv4 address of unreserved, percent-encoded and sub-delimiter characters). Not empty: RFC
 * 9110 section 4.2.1 makes an "http" URI with an empty host invalid.
 */
const validHost = /^(?:\[[0-9A-Za-z:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]*)?$/;

/**
 * True when the request's Host framing is valid (RFC 9112 section 3.2): at most one Host field, with a valid
 * value, and one at all in HTTP/1.1.
 */
function hostFramingValid(request: IncomingMessage): boolean {
  const hosts: string[] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if (request.rawHeaders[i]?.toLowerCase() === 'host') hosts.push(request.rawHeaders[i + 1] ?? '');
  }
  if (hosts.length === 0) return request.httpVersion !== '1.1';
  return hosts.length === 1 && validHost.test(hosts[0] as string);
}

/** A whole HTTP/1.1 response with a JSON body `text` that closes the connection. */
function rawErrorResponse(status: number, text: string): string {
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
  );
}

/** What an API server answers itself besides its listener's answers. */
export interface ApiServerOptions {
  /** The template's gateway responses: headers past the parser's limit get REQUEST_TOO_LARGE's. */
  gatewayResponses?: Readonly<Record<string, GatewayResponseModel>>;
  /** The 400 body of a request the parser refuses or with bad Host framing (default: API Gateway's). */
  errorBody?: ErrorBodyRenderer;
}

/** Answers a parser error on `socket` (a request timeout keeps Node's bodiless 408). */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, options: ApiServerOptions): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const tooLarge = renderGatewayResponse(options.gatewayResponses ?? {}, 'REQUEST_TOO_LARGE', {
      requestId: randomUUID(),
      header: () => undefined,
    });
    socket.end(rawErrorResponse(tooLarge.statusCode, tooLarge.body));
    return;
  }
  socket.end(rawErrorResponse(400, JSON.stringify((options.errorBody ?? defaultErrorBody)(400, malformed))));
}

/**
 * An HTTP server serving `listener`: what Node's parser refuses and a request with bad Host framing (none in
 * HTTP/1.1, two, or an invalid one; RFC 9112 section 3.2) get an error body and `Connection: close` (headers
 * past the limit 413 with the template's REQUEST_TOO_LARGE gateway response, the rest 400 with `errorBody`).
 */
export function createApiServer(listener: RequestListener, options: ApiServerOptions = {}): Server {
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    if (!hostFramingValid(request)) {
      request.resume();
      const text = JSON.stringify((options.errorBody ?? defaultErrorBody)(400, badHost));
      response.writeHead(400, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(text),
        Connection: 'close',
      });
      response.end(text);
      return;
    }
    listener(request, response);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, options),
  );
  return server;
}
