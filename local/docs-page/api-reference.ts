/** The API reference page: openapi.yaml in Swagger UI, one self-contained HTML file (docs/api-reference.md). */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The API description at the project root. */
export const openapiFile = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The page's own script (servers, exact int64, the folded description, read-only as a file), beside this module. */
const pageSetupFile = fileURLToPath(new URL('page-setup.js', import.meta.url));

/** A file of the renderer's package as a base64 data URL of the given media type. */
async function dataUrl(file: string, mediaType: string): Promise<string> {
  return `data:${mediaType};base64,${(await readFile(join(swaggerUiDir, file))).toString('base64')}`;
}

/** JSON text that cannot end the `<script>` element holding it: every `<` escaped. */
function scriptJson(json: string): string {
  return json.replaceAll('<', '\\u003c');
}

/** Where the page is served from. */
export interface ApiReferenceOptions {
  /**
   * The API's path on the page's own origin (`/v1`): the page offers that server first and preselects it.
   * Omitted (the file of `npm run docs`): the servers of openapi.yaml alone, and the page is read-only
   * (docs/api-reference.md "The static file is read-only").
   */
  apiBasePath?: string;
}

/** openapi.yaml as JSON text: integers beyond 2^53 (int64 bounds and examples) are written digit for digit. */
async function descriptionJson(): Promise<string> {
  const description: unknown = parse(await readFile(openapiFile, 'utf8'), { intAsBigInt: true });
  return JSON.stringify(description, (_key, value: unknown) =>
    typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value,
  );
}

/** Renders the page from the current openapi.yaml (read on each call, so an edit shows on the next load). */
export async function apiReferenceHtml(options: ApiReferenceOptions = {}): Promise<string> {
  const [script, style, description, setup] = await Promise.all([
    dataUrl('swagger-ui-bundle.js', 'text/javascript'),
    dataUrl('swagger-ui.css', 'text/css'),
    descriptionJson(),
    readFile(pageSetupFile, 'utf8'),
  ]);
  const settings = JSON.stringify({ apiBasePath: options.apiBasePath ?? null });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet store API reference</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src data: 'unsafe-inline'; style-src data: 'unsafe-inline'; img-src data:; connect-src 'self'">
<link rel="stylesheet" href="${style}">
</head>
<body>
<div id="api-reference"></div>
<script type="application/json" id="openapi">${scriptJson(description)}</script>
<script type="application/json" id="page-settings">${scriptJson(settings)}</script>
<script src="${script}"></script>
<script>
${setup}</script>
</body>
</html>
`;
}
