/**
 * A TCP port that is free on 127.0.0.1 right now, for servers a test must restart on the same port.
 */
import { createServer } from 'node:net';

/** Asks the OS for a free port on 127.0.0.1 and releases it at once. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
