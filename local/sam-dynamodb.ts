/** `npm run sam:dynamodb`, the embedded DynamoDB alone: docs/local-api.md "A local DynamoDB for the SAM CLI". */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { credentialsFile, credentialVariables, inMemory, startDynamoDb } from 'local-aws';
import { ensureTables } from '#lib/admin/tables.ts';
import { samTableNames, seedSamFixtures } from './sam-fixtures.ts';
import { localAwsDefaults, localDataDir } from './settings.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    host: { type: 'string', default: '127.0.0.1' },
    'data-dir': { type: 'string', default: localDataDir() },
    'env-vars': { type: 'string' },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  throw new Error(`--port: not a port: ${values.port}`);

localAwsDefaults();
const db = await startDynamoDb({ dataDir: values['data-dir'], port, host: values.host });
const client = new DynamoDBClient({ endpoint: db.endpoint, credentials: db.credentials });
const names = samTableNames();
await ensureTables(client, names);
await seedSamFixtures(DynamoDBDocumentClient.from(client), names);
client.destroy();

// Before the lines below: a supervisor may send a signal as soon as it reads them.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await db.close();
    console.log('Stopped.');
    process.exit(0);
  });
}

/** The port `sam/env-vars.json` points the functions at. */
const envVarsPort = 8000;
const listening = new URL(db.endpoint).port;

console.log(`DynamoDB for the SAM CLI at ${db.endpoint} (data in ${values['data-dir']})`);
console.log(`Tables: ${Object.values(names).join(', ')}; SAM event fixtures seeded.`);
// The SAM CLI gives its functions the host's credentials (its --env-vars cannot set them): run sam with the
// store's own, the only ones it accepts.
if (values['data-dir'] === inMemory) {
  const variables = Object.entries(credentialVariables(db.credentials)).map(
    ([name, value]) => `${name}=${value}`,
  );
  console.log(`Credentials (this process only): run sam with ${variables.join(' ')}`);
} else {
  console.log(
    `Credentials: pass the store's own to sam: env $(cat ${credentialsFile(values['data-dir'])}) sam local invoke ...`,
  );
}
if (values['env-vars']) {
  // sam/env-vars.json with every function's endpoint on the port this server listens on.
  const envVars = JSON.parse(await readFile(new URL('../sam/env-vars.json', import.meta.url), 'utf8'));
  for (const variables of Object.values(envVars) as Record<string, string>[]) {
    const endpoint = new URL(variables.AWS_ENDPOINT_URL_DYNAMODB as string);
    endpoint.port = listening;
    variables.AWS_ENDPOINT_URL_DYNAMODB = endpoint.origin;
  }
  await writeFile(values['env-vars'], `${JSON.stringify(envVars, null, 2)}\n`);
  console.log(`Wrote ${values['env-vars']}: pass it to sam with --env-vars.`);
} else if (listening !== String(envVarsPort)) {
  console.log(
    `sam/env-vars.json points the functions at port ${envVarsPort}: add --env-vars <file> to write one for port ${listening}.`,
  );
}
