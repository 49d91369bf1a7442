/**
 * A streamed response is produced at the client's pace (README.md "Memory and shutdown"): a local
 * function's writes wait while the bytes it posted are not taken, so the serving process holds a bounded part of a
 * body however large it is and however slowly it is read.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, test } from 'vitest';
import { LambdaFunction, streamWindowBytes } from '../lambda/lambda-runtime.ts';
import { temporaryDir } from '../testing/temporary-dirs.ts';
import { cleanUpAfterAll } from './support/suite-cleanup.ts';

cleanUpAfterAll();

/** Chunks and bytes per chunk the handler writes: 4 MB, many times the window. */
const [chunks, chunkBytes] = [64, 64 * 1024];

/** A streaming handler writing {@link chunks} chunks as fast as its stream accepts them. */
const handlerSource = `export const handler = awslambda.streamifyResponse(async (_event, stream) => {
  for (let i = 0; i < ${chunks}; i++) {
    if (!stream.write(Buffer.alloc(${chunkBytes}, 97 + (i % 26)))) await new Promise((r) => stream.once('drain', r));
  }
  stream.end();
});`;

const functions: LambdaFunction[] = [];
afterAll(async () => {
  for (const fn of functions) await fn.close();
});

test('a streamed body nobody reads holds at most the window, and reading it whole loses nothing', async () => {
  const module = join(await temporaryDir('streaming-'), 'index.mjs');
  await writeFile(module, handlerSource);
  const fn = new LambdaFunction({
    logicalId: 'Streaming',
    module,
    exportName: 'handler',
    environment: {},
    memoryMb: 128,
    timeoutSeconds: 30,
  });
  functions.push(fn);
  const outcome = await fn.invoke({});
  if (outcome.type !== 'stream') throw new Error(`not a stream: ${JSON.stringify(outcome)}`);
  const body = outcome.body as Duplex;
  body.pause();
  // Time for a producer without back-pressure to post the whole body (the old runtime did in milliseconds).
  await sleep(1000);
  const held = body.readableLength + body.writableLength;
  expect(held).toBeLessThanOrEqual(streamWindowBytes + chunkBytes + body.writableHighWaterMark);

  const received: Buffer[] = [];
  body.on('data', (chunk: Buffer) => received.push(chunk));
  body.resume();
  await once(body, 'end');
  const all = Buffer.concat(received);
  expect(all.length).toBe(chunks * chunkBytes);
  for (let i = 0; i < chunks; i++) expect(all[i * chunkBytes]).toBe(97 + (i % 26));
});
