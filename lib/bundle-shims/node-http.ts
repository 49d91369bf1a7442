/** Bundle stand-in for `node:http`, loaded with `require`: docs/architecture.md "Bundles". */

import type * as Http from 'node:http';
import { createRequire } from 'node:module';

const http = createRequire(import.meta.url)('node:http') as typeof Http;

/** The module itself, for `import http from 'node:http'` and `(await import('node:http')).default`. */
export default http;

/** The named exports the bundled packages use (esbuild fails the build if one asks for another). */
export const { Agent, STATUS_CODES, request } = http;
