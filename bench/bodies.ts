/** CPU per KB of hostile write bodies up to the 6 MB payload: docs/contract.md "Bounded cost, clean shutdown". */
import { childMain, inChild } from './child.ts';
import { quantile } from './stats.ts';

/** Body sizes in bytes: 1 KB, 64 KB, 1 MB and 5.9 MB (the event stays under Lambda's 6 MB invocation payload). */
export const bodySizes = [1, 64, 1024, 5.9 * 1024].map((kb) => Math.floor(kb * 1024));

/** One write operation and one kind of hostile body: median µs of CPU per KB at each of {@link bodySizes}. */
export interface BodyResult {
  operation: string;
  kind: string;
  usPerKb: number[];
}

/** The write operations: handler module, request, the members of a valid body and its integer member. */
const writes = [
  ['updateInventory', 'update-inventory', 'PATCH', '/inventory/{petId}', '/inventory/7', '', 'quantity'],
  ['addPet', 'add-pet', 'POST', '/pets', '/pets', '"name":"Rex",', 'id'],
  ['placeOrder', 'place-order', 'POST', '/store/orders', '/store/orders', '"petId":7,', 'quantity'],
] as const;

const json = { 'Content-Type': 'application/json' };

/** Hostile bodies of about `size` bytes around the members `valid` and the integer member `integer`. */
const kinds: Record<string, (valid: string, integer: string, size: number) => string> = {
  longNumber: (valid, integer, size) => `{${valid}"${integer}":1${'0'.repeat(size)}1}`,
  manyMembers: (valid, integer, size) =>
    `{${valid}"${integer}":5${Array.from({ length: size / 10 }, (_, i) => `,"m${i}":0`).join('')}}`,
  longString: (valid, integer, size) => `{${valid}"${integer}":"${'a'.repeat(size)}"}`,
  deepNesting: (valid, integer, size) =>
    `{${valid}"${integer}":${'['.repeat(size / 2)}${']'.repeat(size / 2)}}`,
};

/** Runs the series in a child process (its environment stays there). */
export function measureBodies(quick: boolean): Promise<BodyResult[]> {
  return inChild(import.meta.url, { quick });
}

/** In the child: every handler on every kind and size; each answer must be a 400, else it throws. */
async function run({ quick }: { quick: boolean }): Promise<BodyResult[]> {
  // Each body is refused before any DynamoDB request: the table names need not name tables.
  for (const { env } of Object.values((await import('#lib/tables.ts')).tables)) process.env[env] ??= 'bench';
  const { restProxyEvent } = await import('../test/support/lambda-events.ts');
  const { lambdaContext } = await import('@pet-store/local-aws');
  const results: BodyResult[] = [];
  for (const [operation, module, method, resource, path, valid, integer] of writes) {
    const { handler } = await import(`#functions/${module}/handler.ts`);
    const request = { method, resource, path, pathParameters: { petId: '7' }, headers: json };
    for (const [kind, body] of Object.entries(kinds)) {
      const usPerKb = bodySizes.map(() => [] as number[]);
      for (const [index, size] of bodySizes.entries()) {
        const text = body(valid, integer, size);
        for (let i = 0; i < Math.min(quick ? 20 : 200, Math.max(3, (quick ? 2e6 : 2e7) / size)); i++) {
          const event = restProxyEvent({ ...request, body: text });
          const start = process.cpuUsage();
          const { statusCode } = await handler(event, lambdaContext(operation));
          const { user, system } = process.cpuUsage(start);
          if (statusCode !== 400) throw new Error(`${operation} ${kind} ${size} B: ${statusCode}`);
          usPerKb[index]?.push((user + system) / (Buffer.byteLength(text) / 1024));
        }
      }
      results.push({ operation, kind, usPerKb: usPerKb.map((samples) => quantile(samples, 0.5)) });
    }
  }
  return results;
}

await childMain(import.meta.url, run);
