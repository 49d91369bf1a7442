/**
 * The drain of the local server's request gate, on raw connections (README.md "Memory and
 * shutdown"): once the drain starts, each connection closes after its last answer, a request pipelined
 * behind one in flight is answered before the connection closes, and a request behind an answer already sent
 * as the connection's last never runs.
 */
import type { Server, ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, test } from 'vitest';
import { createApiServer } from '../apigateway/http-server.ts';
import { type RequestGate, requestGate } from '../apigateway/request-gate.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server whose listener hands each response to the test, which answers it. */
async function serve(): Promise<{ gate: RequestGate; responses: ServerResponse[]; port: number }> {
  const responses: ServerResponse[] = [];
  const gate = requestGate((request, response) => {
    request.resume();
    responses.push(response);
  });
  gate.open();
  server = createApiServer(gate.listener);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { gate, responses, port: (server.address() as AddressInfo).port };
}

/** Writes `text` on a new connection; resolves with all the server sent once it closes the connection. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => resolve(received)).on('error', reject);
  });
}

/** Waits until the server has handed the test `count` responses (polled every 5 ms, for at most 5 s). */
const handed = (responses: ServerResponse[], count: number) =>
  expect.poll(() => responses.length, { timeout: 5_000, interval: 5 }).toBe(count);

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

test('a request pipelined behind one in flight is answered, and only the last answer closes', async () => {
  const { gate, responses, port } = await serve();
  const received = exchange(port, get('/first') + get('/second'));
  await handed(responses, 2);
  const drained = gate.drain(5_000);
  for (const [index, response] of responses.entries()) response.end(`answer ${index}`);
  await drained;
  const text = await received;
  const answers = text.split('HTTP/1.1 200 OK\r\n').slice(1);
  expect(answers).toHaveLength(2);
  expect(answers[0]).toMatch(/(?:^|\r\n)Connection: keep-alive\r\n[\s\S]*answer 0$/);
  expect(answers[1]).toMatch(/(?:^|\r\n)Connection: close\r\n[\s\S]*answer 1$/);
});

test('a response already streaming when the drain starts closes its connection once sent', async () => {
  const { gate, responses, port } = await serve();
  const received = exchange(port, get('/stream'));
  await handed(responses, 1);
  const response = responses[0] as ServerResponse;
  response.writeHead(200, { 'Content-Type': 'text/plain' }).write('part 1, ');
  const drained = gate.drain(5_000);
  response.end('part 2');
  await drained;
  // The connection ends at once, not after the keep-alive timeout.
  const text = await Promise.race([received, sleep(1_000, 'still open')]);
  expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n[\s\S]*part 1, [\s\S]*part 2/);
});

test('a request arriving behind an answer already sent with Connection: close is not run', async () => {
  const { gate, responses, port } = await serve();
  let secondWritten = false;
  const received = new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(get('/first')));
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      // The answer's head is out: now a second request follows on the same connection.
      if (text.includes('\r\n\r\n') && !text.includes('second sent')) {
        text += 'second sent';
        socket.write(get('/second'), () => {
          secondWritten = true;
        });
      }
    });
    socket.on('end', () => resolve(text)).on('error', reject);
  });
  await handed(responses, 1);
  const drained = gate.drain(5_000);
  const first = responses[0] as ServerResponse;
  first.writeHead(200, { 'Content-Type': 'text/plain' }).write('part 1, ');
  // The second request is on its way before the first answer ends.
  await expect.poll(() => secondWritten, { timeout: 5_000, interval: 5 }).toBe(true);
  first.end('part 2');
  await drained;
  const text = await received;
  expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*part 2/);
  expect(text.match(/HTTP\/1\.1/g)).toHaveLength(1);
  expect(responses).toHaveLength(1);
});
