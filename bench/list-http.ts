/**
 * List scaling through the real path: `npm start` (infra/local/server.ts) as its own process, on a DynamoDB
 * in another process (dynamo-server.ts), listed over HTTP at each size. Per size: the whole list's time and
 * time to first byte (median of the runs), the server's peak memory growth during one list (Linux: the peak
 * resident set `VmHWM`, reset before each list through `/proc/<pid>/clear_refs`), and beside them, in the
 * same run, the raw sorted read of the same data (sorted-read.ts) with the read units DynamoDB reports for it,
 * which are the list's (the same Queries). Entries are generated (inventory-data.ts) and written with the
 * store's own `putMany`, as the import tool writes them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { generateApiKey } from '#lib/auth/api-key.ts';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { localClientConfig, startDynamoServer } from './dynamo-server.ts';
import { benchTableNames, functionEnv } from './function-env.ts';
import { generateInventory } from './inventory-data.ts';
import { sortedIndexRead } from './sorted-read.ts';
import { quantile } from './stats.ts';

/** How much to measure at one size. */
export interface ListStep {
  entries: number;
  /** Timed lists (and as many raw reads), after one untimed of each. */
  runs: number;
}

/** Figures at one size: medians in milliseconds, memory in MB, read units of one list. */
export interface ListResult {
  entries: number;
  totalMs: number;
  firstByteMs: number;
  rawMs: number;
  peakMemoryMb: number;
  readUnits: number;
  bodyMb: number;
  loadRate: number;
}

/** One list over HTTP: time to the first body byte, to the end, body size; throws unless it is complete. */
function timedList(
  url: string,
  apiKey: string,
): Promise<{ firstByteMs: number; totalMs: number; bytes: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers: { Authorization: `Bearer ${apiKey}` } }, (response) => {
      let firstByteMs = 0;
      let bytes = 0;
      let last = 0;
      response.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - start;
        bytes += chunk.length;
        last = chunk[chunk.length - 1] ?? 0;
      });
      response.on('end', () => {
        if (response.statusCode !== 200 || last !== 0x5d)
          reject(new Error(`incomplete list (${response.statusCode})`));
        else resolve({ firstByteMs, totalMs: performance.now() - start, bytes });
      });
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** `VmRSS` or `VmHWM` of process `pid`, in MB. */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  )?.[1];
  return Number(kb) / 1024;
}

/** Starts `npm start` on the bench DynamoDB with `apiKey`; resolves with the process and its base URL. */
function startServer(endpoint: string, apiKey: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  const script = fileURLToPath(new URL('../infra/local/server.ts', import.meta.url));
  const env = {
    ...process.env,
    ...functionEnv(endpoint),
    API_KEY: apiKey,
    PORT: '0',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  };
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const baseUrl = /^Pet store inventory API at (\S+) /m.exec(output)?.[1];
      if (baseUrl && /^Try: curl /m.test(output)) resolve({ child, baseUrl });
    });
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${output}`)));
  });
}

/** Grows the bench table through `steps` and measures each size (see the module docstring). */
export async function measureListOverHttp(steps: readonly ListStep[], log: (line: string) => void) {
  const db = await startDynamoServer();
  const raw = new DynamoDBClient({ ...localClientConfig, endpoint: db.endpoint });
  const client = toDocumentClient(raw);
  const store = inventoryStore(client, benchTableNames.inventory);
  const apiKey = generateApiKey();
  const { child, baseUrl } = await startServer(db.endpoint, apiKey);
  const pid = child.pid as number;
  const results: ListResult[] = [];
  try {
    let loaded = 0;
    for (const step of steps) {
      const loadStart = performance.now();
      for (let from = loaded; from < step.entries; from += 10_000) {
        const chunk = generateInventory(from, Math.min(from + 10_000, step.entries));
        const eighth = Math.ceil(chunk.length / 8);
        await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.putMany(chunk.slice(i * eighth, (i + 1) * eighth))),
        );
        if ((from / 10_000) % 10 === 9) log(`loaded ${from + 10_000} entries`);
      }
      const loadRate = (step.entries - loaded) / ((performance.now() - loadStart) / 1000);
      loaded = step.entries;
      const rawRead = () => sortedIndexRead(client, benchTableNames.inventory);
      try {
        await timedList(`${baseUrl}/inventory`, apiKey);
        await rawRead();
        const lists: { firstByteMs: number; totalMs: number; bytes: number }[] = [];
        const rawMs: number[] = [];
        const peaks: number[] = [];
        const { readUnits } = await sortedIndexRead(client, benchTableNames.inventory, true);
        for (let run = 0; run < step.runs; run++) {
          writeFileSync(`/proc/${pid}/clear_refs`, '5');
          const before = memoryMb(pid, 'VmRSS');
          lists.push(await timedList(`${baseUrl}/inventory`, apiKey));
          peaks.push(memoryMb(pid, 'VmHWM') - before);
          const start = performance.now();
          await rawRead();
          rawMs.push(performance.now() - start);
        }
        const median = (values: number[]) => quantile(values, 0.5);
        const result: ListResult = {
          entries: step.entries,
          totalMs: median(lists.map((l) => l.totalMs)),
          firstByteMs: median(lists.map((l) => l.firstByteMs)),
          rawMs: median(rawMs),
          peakMemoryMb: median(peaks),
          readUnits,
          bodyMb: (lists[0]?.bytes ?? 0) / 2 ** 20,
          loadRate,
        };
        log(
          `${step.entries} entries: list ${result.totalMs.toFixed(0)} ms (first byte ${result.firstByteMs.toFixed(1)} ms),` +
            ` raw ${result.rawMs.toFixed(0)} ms, peak +${result.peakMemoryMb.toFixed(1)} MB, ${readUnits} RRU`,
        );
        results.push(result);
      } catch (error) {
        // A list cut mid-stream (the emulator timing out under load) ends the run at this size.
        log(`${step.entries} entries: the list failed (${(error as Error).message}); larger sizes skipped`);
        break;
      }
    }
  } finally {
    child.kill('SIGTERM');
    client.destroy();
    await db.close();
  }
  return results;
}
