/** `npm start` and `npm run dev` run the server with the V8 flags of test/support/heap-settings.ts. */
import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { serverNodeFlags } from '#test/support/heap-settings.ts';

test('npm start and npm run dev give the server the V8 flags that size its heap', async () => {
  const { scripts } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  for (const script of [scripts.start, scripts.dev]) {
    expect(script).toContain(`node ${serverNodeFlags.join(' ')} local/server.ts`);
  }
});
