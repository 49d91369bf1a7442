/**
 * Requests written byte for byte on a new connection (repeated headers, names in any case, malformed framing:
 * what `fetch` would merge or refuse), and the whole answer read until the server closes the connection.
 */
import { connect } from 'node:net';
import { dechunk } from '../../testing/raw-upload.ts';

/**
 * An answer: status, headers (names lower-cased; a repeated one's values joined with `, `) and body (UTF-8,
 * de-chunked).
 */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything received, as latin1 text (one character a byte). */
  raw: string;
}

/** Parses one HTTP/1.1 answer (received as latin1 text). */
export function parseAnswer(raw: string): RawAnswer {
  const separator = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.slice(0, separator).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const body = raw.slice(separator + 4);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body: Buffer.from(headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body, 'latin1').toString(),
    raw,
  };
}

/** Writes `text` to `127.0.0.1:port` and resolves with what the server sent once it closed the connection. */
export function exchange(port: number, text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => resolve(parseAnswer(received))).on('error', reject);
  });
}

/**
 * `method target` with `Host` and `Connection: close`, then exactly `headers` (name, value), without a body.
 */
export function send(
  port: number,
  method: string,
  target: string,
  headers: [string, string][] = [],
): Promise<RawAnswer> {
  const lines = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return exchange(
    port,
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines}\r\n`,
  );
}
