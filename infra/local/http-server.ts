/** The local API's HTTP server; Node's refusals get the Error body: docs/api-gateway-behaviour.md G2. */
import { createServer, type RequestListener, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '#lib/http/errors.ts';
import { gatewayResponses } from '../gateway-responses.ts';

const malformed = errorBody('invalid_request', 'malformed HTTP request');
const noHost = errorBody('invalid_request', 'malformed HTTP request: the Host header is required');

/** A whole HTTP/1.1 response with an Error body that closes the connection. */
function rawErrorResponse(body: { status: number }): string {
  const text = JSON.stringify(body);
  return (
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
  );
}

/** Answers a parser error on `socket` (a request timeout keeps Node's bodiless 408). */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    return;
  }
  const body = error.code === 'HPE_HEADER_OVERFLOW' ? gatewayResponses.REQUEST_TOO_LARGE : malformed;
  socket.end(rawErrorResponse(body));
}

/**
 * An HTTP server serving `listener`: what Node's parser refuses and a request without `Host` get the Error
 * body (headers past the limit 413, the rest 400).
 */
export function createApiServer(listener: RequestListener): Server {
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    if (request.httpVersion === '1.1' && request.headers.host === undefined) {
      request.resume();
      const text = JSON.stringify(noHost);
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
  server.on('clientError', answerClientError);
  return server;
}
