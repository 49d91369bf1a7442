/** Free TCP ports of 127.0.0.1 for test servers (docs/architecture.md "Principles"). */
import type { Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';

/** Asks the OS for a free port on 127.0.0.1 and releases it at once. */
export async function freePort(): Promise<number> {
  const server = createServer();
  const { port, close } = await listenOnFreePort(server);
  await close();
  return port;
}

/** A server listening on a free port of 127.0.0.1. */
export interface Listening {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  port: number;
  /** Stops listening, ends open connections (of an HTTP server) and waits until the server has closed. */
  close(): Promise<void>;
}

/** Makes `server` listen on a free port of 127.0.0.1. */
export async function listenOnFreePort(server: Server | HttpServer): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
