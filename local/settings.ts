/** Settings of local runs from environment variables: docs/local-api.md "Settings". */
import { type EnvironmentSettings, environments } from '#infra/settings.ts';
import { type TableId, tables } from '#lib/tables.ts';

/**
 * The environment whose settings the local API applies (per-key throttle, key expiry and rotation): staging's,
 * as the local API stands in for a staging stack.
 */
export const localEnvironment: EnvironmentSettings = environments.staging;

/** The data folder: `DATA_DIR`, else `.data`. */
export function localDataDir(): string {
  return process.env.DATA_DIR || '.data';
}

/**
 * Gives the AWS SDK a region and credentials when none are set, so local runs need no AWS account (a DynamoDB
 * named by `AWS_ENDPOINT_URL_DYNAMODB`, such as DynamoDB Local, accepts any signature; the embedded one only its
 * own, set where it starts); and turns metrics off. Values already set (a real profile, for instance) are kept.
 */
export function localAwsDefaults(): void {
  process.env.AWS_REGION ||= 'us-east-1';
  // CloudWatch metrics (EMF lines on stdout) mean nothing locally; POWERTOOLS_METRICS_DISABLED=false turns them on.
  process.env.POWERTOOLS_METRICS_DISABLED ||= 'true';
  if (!process.env.AWS_PROFILE) {
    process.env.AWS_ACCESS_KEY_ID ||= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ||= 'local';
  }
}

/** The table name of each table: from its environment variable, else `pet-store-<id>`. */
export function localTableNames(): Record<TableId, string> {
  const kebab = (id: string) => id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return Object.fromEntries(
    (Object.keys(tables) as TableId[]).map((id) => [
      id,
      process.env[tables[id].env] || `pet-store-${kebab(id)}`,
    ]),
  ) as Record<TableId, string>;
}
