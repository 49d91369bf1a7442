/** Temporary folders, removed together after a file's tests (README.md "Tests"). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every folder {@link temporaryDir} made and {@link removeTemporaryDirs} has not removed yet. */
const made: string[] = [];

/** A new empty folder `<os tmpdir>/<prefix><random>`, removed by {@link removeTemporaryDirs}. */
export async function temporaryDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder {@link temporaryDir} made, with what it holds (for `afterAll`). */
export async function removeTemporaryDirs(): Promise<void> {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
}
