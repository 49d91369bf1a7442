import { statSync } from 'node:fs';
import { join } from 'node:path';
import { bundleFunction } from './infra/bundling.ts';

await bundleFunction(join(process.cwd(), 'functions/deliver-webhooks/handler.ts'), `/tmp/iso-bundles/n-d`);
console.log(statSync(`/tmp/iso-bundles/n-d/index.mjs`).size);
