/**
 * @module The package's entry: checks the runtime, then loads the client from its TypeScript sources
 * (client/README.md). A static import would fail on an older Node before any check could run.
 */

/** Whether `JSON.parse` gives revivers the source text of each number, and `JSON.rawJSON` exists. */
function hasJsonSourceText() {
  let source;
  JSON.parse('1', (_key, value, context) => {
    source = context?.source;
    return value;
  });
  return source === '1' && typeof JSON.rawJSON === 'function';
}

const node = globalThis.process?.versions?.node;
const stripsTypes = node === undefined || Boolean(globalThis.process.features?.typescript);
if (!hasJsonSourceText() || !stripsTypes) {
  throw new Error(
    '@pet-store/client needs Node.js 22.18 or later (JSON.parse source text access keeps int64 exact; ' +
      `its TypeScript sources run by type stripping); this is ${node ? `Node.js v${node}` : 'a runtime without JSON.parse source text access'}`,
  );
}

const client = await import('./src/index.ts');
export const { ApiError, createPetStoreClient, parseExactJson, stringifyExactJson } = client;
