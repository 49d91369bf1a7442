/** Starts headless Chromium (Debian's `chromium`) for the API reference page tests (docs/testing.md "Test support"). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** A running browser and its throwaway profile. */
export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts headless Chromium with an empty `--user-data-dir`.
 *
 * Headless Chromium for the page tests: Debian's `chromium` package (`/usr/bin/chromium`, or
 * `CHROMIUM_PATH`), driven by playwright-core, with no first-run, background networking, component update
 * or sync, and an empty profile folder.
 */
export async function startChromium(): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
