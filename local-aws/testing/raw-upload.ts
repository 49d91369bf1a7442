/**
 * A client that uploads a large body the way a careful HTTP client does: in chunks, waiting whenever the
 * server reads nothing, and stopping at the server's answer (README.md "Request bodies before
 * credentials").
 */
import { once } from 'node:events';
import { connect, type Server, type Socket } from 'node:net';

/** What an upload saw: the answer's status and body (0 and empty when the connection ended unanswered). */
export interface UploadOutcome {
  status: number;
  body: string;
  /** Body bytes the client handed to its socket before the answer or the end of the connection. */
  sent: number;
}

/**
 * Sends `head` (the request line and header lines, each ending in CRLF, without the empty line) to
 * `127.0.0.1:port`, then up to `bodyBytes` bytes of body in 64 KB chunks, writing only while the socket takes
 * them; stops writing once an answer arrives or the connection ends, and resolves once it has closed.
 */
export async function upload(port: number, head: string, bodyBytes: number): Promise<UploadOutcome> {
  const { socket, received, closed } = await open(port, head);
  const sent = await writeBody(socket, bodyBytes, () => received() !== '', closed);
  await closed;
  const text = received();
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const separator = text.indexOf('\r\n\r\n');
  const body = separator < 0 ? '' : text.slice(separator + 4);
  const chunked = /\r\ntransfer-encoding: *chunked\r\n/i.test(text.slice(0, separator + 2));
  return { status, body: chunked ? dechunk(body) : body, sent };
}

/** The data of a chunked body (RFC 9112 section 7.1), as far as it was received. */
export function dechunk(body: string): string {
  let data = '';
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (lineEnd < 0 || !(size > 0)) return data;
    data += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends `head` and then `bodyBytes` bytes of body (fewer when the server has not taken them within `writeMs`
 * milliseconds), and leaves the connection open: resolves with its socket, to be destroyed by the caller.
 */
export async function holdUpload(
  port: number,
  head: string,
  bodyBytes: number,
  writeMs = 1_000,
): Promise<Socket> {
  const { socket, closed } = await open(port, head);
  const writing = new Promise((resolve) => setTimeout(resolve, writeMs));
  await writeBody(socket, bodyBytes, () => false, Promise.race([closed, writing]));
  return socket;
}

/** A connection to `127.0.0.1:port` with `head` sent, what it has received so far, and its end. */
async function open(port: number, head: string) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let received = '';
  socket.on('data', (data: Buffer) => {
    received += data.toString('latin1');
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await once(socket, 'connect');
  socket.write(`${head}\r\n`);
  return { socket, received: () => received, closed };
}

/** Writes up to `bodyBytes` in 64 KB chunks while `stop` is false; a write waits for `drain`, or gives up at `end`. */
async function writeBody(
  socket: Socket,
  bodyBytes: number,
  stop: () => boolean,
  end: Promise<unknown>,
): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let sent = 0;
  let over = false;
  void end.then(() => {
    over = true;
  });
  while (sent < bodyBytes && !over && !stop() && !socket.destroyed) {
    const part = chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent));
    sent += part.length;
    if (!socket.write(part)) {
      await Promise.race([
        new Promise((resolve) => socket.once('drain', resolve)),
        end,
        new Promise((resolve) => socket.once('data', resolve)),
      ]);
    }
  }
  return sent;
}

/** Counts the bytes `server` reads from all its connections (including those already closed). */
export function bytesReadBy(server: Server): () => number {
  const sockets: Socket[] = [];
  server.on('connection', (socket: Socket) => sockets.push(socket));
  return () => sockets.reduce((total, socket) => total + socket.bytesRead, 0);
}
