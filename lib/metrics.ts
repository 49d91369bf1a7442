/** The container's business metrics (Powertools Metrics, EMF on stdout): README "Metrics". */
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

/** The shared metrics buffer; flushed by `logMetrics`, off with `POWERTOOLS_METRICS_DISABLED=true`. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || defaultNamespace,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? serviceName,
  logger: metricsLogger,
});
