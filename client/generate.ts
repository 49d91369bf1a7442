/** `npm run client:generate` (run by `npm install`): client/src/schema.ts of openapi.yaml, int64 `bigint`. */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

/** The API description and the generated file. */
export const openapiUrl = new URL('../openapi.yaml', import.meta.url);
export const schemaFile = fileURLToPath(new URL('src/schema.ts', import.meta.url));

/**
 * The property name a schema path of openapi-typescript ends in (`#/components/schemas/InventoryItem/petId`
 * -> `petId`), or undefined for a parameter, a whole component or an array's or a body's own schema.
 */
function propertyName(path: string): string | undefined {
  const segments = path.split('/');
  const name = segments.at(-1);
  if (path.includes('/parameters/') || segments.length <= 4 || name === 'items' || name === 'schema')
    return undefined;
  return name;
}

/** The text of client/src/schema.ts for the current openapi.yaml. */
export async function generateSchema(): Promise<string> {
  const int64Properties = new Set<string>();
  const ast = await openapiTS(openapiUrl, {
    transform(schema, options) {
      if (schema.format !== 'int64') return undefined;
      const property = propertyName(options.path ?? '');
      if (property) int64Properties.add(property);
      return ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);
    },
  });
  const names = [...int64Properties].sort().map((name) => `'${name}'`);
  return `${astToString(ast)}
/** Names of the properties that are \`format: int64\` in openapi.yaml: the client parses them as bigint. */
export const int64Properties: ReadonlySet<string> = new Set([${names.join(', ')}]);
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(schemaFile, await generateSchema());
  console.log(`Generated ${schemaFile} from openapi.yaml`);
}
