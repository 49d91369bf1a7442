/** One `afterAll` that leaves no child process or temporary folder behind (docs/testing.md "Test support"). */
import { removeTemporaryDirs } from 'local-aws/testing';
import { afterAll } from 'vitest';
import { killChildren } from './child-process.ts';

/**
 * Registers the suite's `afterAll`: kills the children still running (after a failed test), then runs
 * `closers` in order (each may find what it closes never started), then removes every temporary folder.
 */
export function cleanUpAfterAll(...closers: (() => unknown)[]): void {
  afterAll(async () => {
    killChildren();
    for (const close of closers) await close();
    await removeTemporaryDirs();
  });
}
