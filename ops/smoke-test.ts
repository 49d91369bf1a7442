/** `npm run smoke -- <BaseUrl>`: the pipeline's smoke test of a deployed or local API (docs/operating.md "Continuous delivery"). */
import { isDeepStrictEqual } from 'node:util';
import { Command } from 'commander';
import { gatewayResponses } from '#infra/gateway-responses.ts';

/** One check's outcome: the failure's description, or undefined when it passed. */
type Check = () => Promise<string | undefined>;

/** `GET <base>/inventory` with the given headers, as status, content type and body text. */
async function getInventory(baseUrl: string, headers: Record<string, string>) {
  const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/inventory`, {
    headers,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

function checks(baseUrl: string, apiKey: string | undefined): [string, Check][] {
  const list: [string, Check][] = [
    [
      'GET /inventory without credentials is 401 unauthorized',
      async () => {
        const { status, text } = await getInventory(baseUrl, {});
        const body = (() => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            return text;
          }
        })();
        const ok = status === 401 && isDeepStrictEqual(body, gatewayResponses.UNAUTHORIZED);
        return ok ? undefined : `got ${status} ${text.slice(0, 200)}`;
      },
    ],
  ];
  if (apiKey) {
    list.push([
      'GET /inventory with SMOKE_API_KEY is 200 with a JSON array',
      async () => {
        const { status, type, text } = await getInventory(baseUrl, { authorization: `Bearer ${apiKey}` });
        const ok = status === 200 && type?.startsWith('application/json') && text.startsWith('[');
        return ok ? undefined : `got ${status} ${type} ${text.slice(0, 200)}`;
      },
    ]);
  }
  return list;
}

await new Command('smoke')
  .description('Smoke-test a deployed API (the stack output BaseUrl); SMOKE_API_KEY adds an authorized list')
  .argument('<baseUrl>', 'the API base URL, for example https://abc.execute-api.eu-west-1.amazonaws.com/v1/')
  .action(async (baseUrl: string) => {
    for (const [name, check] of checks(baseUrl, process.env.SMOKE_API_KEY || undefined)) {
      const failure = await check().catch((error: Error) => `request failed: ${error.message}`);
      console.log(`${(failure ? 'FAIL' : 'ok').padEnd(5)}${name}${failure ? `: ${failure}` : ''}`);
      if (failure) process.exit(1);
    }
  })
  .parseAsync();
