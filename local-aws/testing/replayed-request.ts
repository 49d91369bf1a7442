/**
 * The body of a request to the embedded DynamoDB's HTTP server, read by a preloaded test hook before the store
 * sees it (testing/crash-hook.ts, or a host's own hook), and a request that hands the same body
 * to the store's own listener.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Reads `request`'s body whole (UTF-8) and returns it with a request that replays it: the same method, URL,
 * headers and socket, its body the bytes read (none when the request had none).
 */
export async function readAndReplay(request: IncomingMessage): Promise<[string, IncomingMessage]> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  const replayed = Object.assign(Readable.from(chunks.length > 0 ? [Buffer.from(text)] : []), {
    method: request.method,
    url: request.url,
    headers: request.headers,
    socket: request.socket,
  }) as unknown as IncomingMessage;
  return [text, replayed];
}
