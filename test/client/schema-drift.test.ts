/**
 * client/src/schema.ts is what `npm run client:generate` makes of the current openapi.yaml: regenerated here
 * in memory; a difference fails with the command that fixes it.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { generateSchema, schemaFile } from '../../client/generate.ts';

it('client/src/schema.ts matches openapi.yaml (else run `npm run client:generate`)', async () => {
  const [generated, committed] = await Promise.all([generateSchema(), readFile(schemaFile, 'utf8')]);
  expect(committed === generated, 'client/src/schema.ts is stale: run `npm run client:generate`').toBe(true);
  expect(generated).toContain('petId: bigint;');
  expect(generated).toContain("new Set(['id', 'orderId', 'petId'])");
});
