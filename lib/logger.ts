/** The container's JSON logger (Powertools); never given a key, table name or stack (docs/contract.md). */
import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './service-name.ts';

/** The shared logger. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? serviceName,
});
