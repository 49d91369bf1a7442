/**
 * Settings of local runs (the local server, the SAM DynamoDB, the tools), from environment variables:
 * `DATA_DIR` (default `.data`; `:memory:` keeps nothing), `PORT` (3000), `HOST` (127.0.0.1), `API_KEY`
 * (optional), `AWS_ENDPOINT_URL_DYNAMODB` (optional: use that DynamoDB instead of the embedded one).
 */
import { inMemory } from './dynamodb.ts';

/** The data folder: `DATA_DIR`, else `.data`. */
export function localDataDir(): string {
  return process.env.DATA_DIR || '.data';
}

/** True when nothing is kept between runs. */
export function isInMemory(dataDir: string): boolean {
  return dataDir === inMemory;
}

/**
 * Gives the AWS SDK a region and credentials when none are set, so local runs need no AWS account: a local
 * DynamoDB accepts any signature. Values already set (a real profile, for instance) are kept.
 */
export function localAwsDefaults(): void {
  process.env.AWS_REGION ||= 'us-east-1';
  if (!process.env.AWS_PROFILE) {
    process.env.AWS_ACCESS_KEY_ID ||= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ||= 'local';
  }
}
