/**
 * The service's business metrics (Powertools for AWS Lambda Metrics), one instance per container.
 *
 * Metrics are written as CloudWatch Embedded Metric Format lines on stdout and flushed once per invocation by
 * the `logMetrics` middy middleware. Namespace from `POWERTOOLS_METRICS_NAMESPACE` (set per environment by the
 * stack), service dimension from `POWERTOOLS_SERVICE_NAME`. Setting `POWERTOOLS_METRICS_DISABLED=true` (or
 * `POWERTOOLS_DEV=true`) turns publishing off, e.g. for the local server and tests.
 *
 * Metrics of the service:
 * - `InventoryUpdated` (Count, 1 per successful updateInventory);
 * - `InventoryListSize` (Count, the number of entries one listInventory returned).
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logger } from './logger.ts';
import { serviceName } from './service-name.ts';

/** Namespace used when `POWERTOOLS_METRICS_NAMESPACE` is not set (local runs). */
const defaultNamespace = 'PetStoreInventory';

/**
 * Powertools' own diagnostics go to the service logger. Its warning for an invocation that recorded no metric
 * is demoted to DEBUG: a rejected request (400, 404) records none by design, and a WARN line per rejected
 * request would drown real warnings.
 */
const metricsLogger = {
  trace: (message: unknown) => logger.trace(String(message)),
  debug: (message: unknown) => logger.debug(String(message)),
  info: (message: unknown) => logger.info(String(message)),
  warn: (message: unknown) => {
    if (String(message).startsWith('No application metrics to publish')) logger.debug(String(message));
    else logger.warn(String(message));
  },
  error: (message: unknown) => logger.error(String(message)),
};

/** The shared metrics buffer. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || defaultNamespace,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? serviceName,
  logger: metricsLogger,
});
