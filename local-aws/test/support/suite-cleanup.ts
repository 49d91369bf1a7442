/** One `afterAll` that leaves no temporary folder behind. */
import { afterAll } from 'vitest';
import { removeTemporaryDirs } from '../../testing/temporary-dirs.ts';

/** Registers the suite's `afterAll`: runs `closers` in order (each may find what it closes never started), then removes every temporary folder. */
export function cleanUpAfterAll(...closers: (() => unknown)[]): void {
  afterAll(async () => {
    for (const close of closers) await close();
    await removeTemporaryDirs();
  });
}
