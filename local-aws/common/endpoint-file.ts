/**
 * @module The endpoint files of a data folder: a running local process writes its `http://host:port` there for
 * the tools and the next start to find (README.md "Data folder"); one file per process kind.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The endpoint files of a data folder: the embedded store's and the local AWS endpoint's. */
export type EndpointFileName = 'endpoint' | 'aws-endpoint';

/** The path of the endpoint file `name` in `dataDir`. */
export function endpointFile(dataDir: string, name: EndpointFileName): string {
  return join(dataDir, name);
}

/** Writes `endpoint` into the endpoint file `name` of `dataDir`, readable by its user only. */
export async function advertiseEndpoint(
  dataDir: string,
  name: EndpointFileName,
  endpoint: string,
): Promise<void> {
  await writeFile(endpointFile(dataDir, name), `${endpoint}\n`, { mode: 0o600 });
}

/** Removes the endpoint file `name` of `dataDir` (nothing when it is not there). */
export async function withdrawEndpoint(dataDir: string, name: EndpointFileName): Promise<void> {
  await rm(endpointFile(dataDir, name), { force: true });
}

/**
 * The endpoint the file `name` of `dataDir` advertises when a process answers there (any HTTP answer within
 * 2 s); undefined when there is no file or nobody answers (a stale file left by a crash).
 */
export async function advertisedEndpoint(
  dataDir: string,
  name: EndpointFileName,
): Promise<string | undefined> {
  const file = endpointFile(dataDir, name);
  if (!existsSync(file)) return undefined;
  const endpoint = (await readFile(file, 'utf8')).trim();
  const reachable = await fetch(endpoint, { method: 'POST', signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );
  return reachable ? endpoint : undefined;
}
