/**
 * Stand-in for `node:http` inside the Lambda bundles (esbuild `alias` in infra/bundling.ts): the same module,
 * loaded with `require` instead of an ESM `import`.
 *
 * Why: on Node 24, importing `node:http` from ESM builds the module's ESM facade, which reads every export,
 * including the lazy `WebSocket`, `CloseEvent` and `MessageEvent` getters, and so loads and compiles the whole
 * of undici (the fetch implementation) at every cold start (the bench's load time shows it). `require` returns the CommonJS exports without touching the getters. The one
 * static ESM import of `node:http` in the bundles is `@middy/util`'s `STATUS_CODES` (error responses); the
 * SDK imports `node:http` lazily, only for `http://` endpoints (local runs), and gets this module too.
 */

import type * as Http from 'node:http';
import { createRequire } from 'node:module';

const http = createRequire(import.meta.url)('node:http') as typeof Http;

/** The module itself, for `import http from 'node:http'` and `(await import('node:http')).default`. */
export default http;

/** The named exports the bundled packages use (esbuild fails the build if one asks for another). */
export const { Agent, STATUS_CODES, request } = http;
