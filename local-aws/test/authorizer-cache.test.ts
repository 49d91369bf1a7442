/**
 * The local authorizer cache is bounded (behaviour.md A9, A10; README.md "Memory and
 * shutdown"): past its bound the least recently used token is evicted, and a token's result expires after
 * the TTL. A stand-in authorizer (testing/functions/behaviour-authorizer.ts) runs in the local Lambda
 * runtime and records every token it is invoked with; the cache's clock is injected.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { authorizerCacheEntries, authorizerStep } from '../apigateway/authorizer.ts';
import { LambdaFunction } from '../lambda/lambda-runtime.ts';
import { removeTemporaryDirs, temporaryDir } from '../testing/temporary-dirs.ts';

const ttlSeconds = 300;
const methodArn = 'arn:aws:execute-api:us-east-1:000000000000:local/v1/GET/items';
let fn: LambdaFunction;
let callsFile: string;

beforeAll(async () => {
  callsFile = join(await temporaryDir('authorizer-cache-'), 'calls');
  await writeFile(callsFile, '');
  fn = new LambdaFunction({
    logicalId: 'Authorizer',
    module: fileURLToPath(new URL('../testing/functions/behaviour-authorizer.ts', import.meta.url)),
    exportName: 'handler',
    environment: { BEHAVIOUR_CALLS: callsFile },
    memoryMb: 256,
    timeoutSeconds: 10,
  });
});
afterAll(async () => {
  await fn?.close();
  await removeTemporaryDirs();
});

/** How many times the authorizer function was invoked with each token. */
async function calls(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const token of (await readFile(callsFile, 'utf8')).split('\n').filter(Boolean)) {
    counts.set(token, (counts.get(token) ?? 0) + 1);
  }
  return counts;
}

test('A10: past its bound the least recently used token is evicted; a result expires after the TTL', async () => {
  let now = 1_000;
  const authorize = authorizerStep(
    { logicalId: 'Authorizer', identityHeader: 'Authorization', ttlSeconds, functionId: 'Authorizer' },
    fn,
    { now: () => now },
  );
  const allow = async (token: string) => {
    const value = `Bearer ${token}`;
    const outcome = await authorize(['Authorization', value], methodArn);
    expect(outcome).toMatchObject({ authorizer: { principalId: 'someone' }, usageIdentifier: 'key-1' });
  };
  const tokens = Array.from({ length: authorizerCacheEntries + 1 }, (_, i) => `token-${i}`);
  for (const token of tokens) await allow(token);
  expect([...(await calls()).values()].every((count) => count === 1)).toBe(true);

  // The newest and the second oldest are still cached; the oldest was evicted and is asked again.
  await allow(tokens.at(-1) as string);
  await allow(tokens[1] as string);
  await allow(tokens[0] as string);
  const afterFill = await calls();
  expect([
    afterFill.get(tokens.at(-1) as string),
    afterFill.get('token-1'),
    afterFill.get('token-0'),
  ]).toEqual([1, 1, 2]);

  // Within the TTL the cached result serves; past it the function is asked again.
  now += ttlSeconds * 1000;
  await allow('token-1');
  expect((await calls()).get('token-1')).toBe(1);
  now += 1;
  await allow('token-1');
  expect((await calls()).get('token-1')).toBe(2);
}, 60_000);
