/**
 * `npm start` does not grow with use (docs/contract.md "Inventory semantics"): its resident memory stays flat over thousands of lists of a
 * table kept on disk. Each list runs one Query per shard of the list index through the embedded DynamoDB;
 * before dynalite's iterators were closed (local-aws/patches/dynalite+4.0.0.patch) every one of them kept its LevelDB
 * iterator for the life of the process, and the server grew at every step of this run.
 */

import { readFileSync } from 'node:fs';
import { temporaryDir } from 'local-aws/testing';
import { expect, test } from 'vitest';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { getInventory, startServerProcess } from '#test/support/server-process.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';

cleanUpAfterAll();

/** The resident set of process `pid` in MB (Linux `/proc/<pid>/status`). */
function residentMb(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** `count` lists, four at a time, each checked complete. */
async function listMany(baseUrl: string, apiKey: string, count: number): Promise<void> {
  for (let done = 0; done < count; done += 4) {
    const lists = await Promise.all(Array.from({ length: 4 }, () => getInventory(baseUrl, apiKey)));
    for (const list of lists) expect(list.status).toBe(200);
  }
}

test.skipIf(process.platform !== 'linux')(
  'the resident memory of npm start stays flat over 4,000 lists of a table on disk',
  async () => {
    const apiKey = generateApiKey();
    const server = await startServerProcess({
      DATA_DIR: await temporaryDir('memory-'),
      API_KEY: apiKey,
      // Far above the 2,500 lists in a few seconds: the per-key throttle is not what this test measures.
      API_KEY_RATE: '1000000',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    });
    try {
      // Resident memory after each step of 500 lists: the heaps settle over the first steps (JIT, pools, the
      // young and old generations of each function's execution environments, lambda-runtime.ts), then a leak
      // would keep adding about as much at every step: the unclosed iterators added far more than the bound
      // at each step, garbage not yet collected moves the figure by a few MB.
      const steps: number[] = [];
      for (let step = 0; step < 8; step++) {
        await listMany(server.baseUrl, apiKey, 500);
        steps.push(residentMb(server.pid));
      }
      const growth = (steps.at(-1) as number) - (steps.at(-3) as number);
      expect(growth, steps.map((mb) => mb.toFixed(1)).join(' -> ')).toBeLessThan(24);
    } finally {
      await server.stop();
    }
  },
  360_000,
);
