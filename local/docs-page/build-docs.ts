/** `npm run docs [-- <file>]`: writes the API reference page (docs/api-reference.md "The API reference page"). */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { apiReferenceHtml } from './api-reference.ts';

const file = resolve(process.argv[2] ?? 'dist/api-reference.html');
await mkdir(dirname(file), { recursive: true });
await writeFile(file, await apiReferenceHtml());
console.log(`API reference written to ${file}`);
