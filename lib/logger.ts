/**
 * The service's structured JSON logger (Powertools for AWS Lambda), one instance per container.
 *
 * Every line carries the Lambda request id once `injectLambdaContext` runs. Rule of the service: no API key,
 * Authorization header, table name or stack trace is ever passed to it (docs/contract.md "Authentication").
 * Level from `POWERTOOLS_LOG_LEVEL` (default INFO); service name from `POWERTOOLS_SERVICE_NAME`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './service-name.ts';

/** The shared logger. */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? serviceName,
});
