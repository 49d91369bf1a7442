/** The API reference page: openapi.yaml in Swagger UI, one self-contained HTML file (README). */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The API description at the project root. */
export const openapiFile = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** A file of the renderer's package as a base64 data URL of the given media type. */
async function dataUrl(file: string, mediaType: string): Promise<string> {
  return `data:${mediaType};base64,${(await readFile(join(swaggerUiDir, file))).toString('base64')}`;
}

/**
 * openapi.yaml as JSON text: integers beyond 2^53 (int64 bounds and examples) are written digit for digit,
 * and every `<` is escaped so the text cannot end the `<script>` element that holds it.
 */
async function descriptionJson(): Promise<string> {
  const description: unknown = parse(await readFile(openapiFile, 'utf8'), { intAsBigInt: true });
  const json = JSON.stringify(description, (_key, value: unknown) =>
    typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value,
  );
  return json.replaceAll('<', '\\u003c');
}

/** Renders the page from the current openapi.yaml (read on each call, so an edit shows on the next load). */
export async function apiReferenceHtml(): Promise<string> {
  const [script, style, description] = await Promise.all([
    dataUrl('swagger-ui-bundle.js', 'text/javascript'),
    dataUrl('swagger-ui.css', 'text/css'),
    descriptionJson(),
  ]);
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
<script type="application/json" id="openapi">${description}</script>
<script src="${script}"></script>
<script>
SwaggerUIBundle({
  spec: JSON.parse(document.getElementById('openapi').textContent),
  dom_id: '#api-reference',
  deepLinking: true,
  displayOperationId: true,
  validatorUrl: null,
});
</script>
</body>
</html>
`;
}
