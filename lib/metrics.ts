/** The service's metrics (Powertools, EMF on stdout, published by their handler): docs/operating.md "Metrics". */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logger } from './logger.ts';
import { serviceName } from './service-name.ts';

/** Namespace used when `POWERTOOLS_METRICS_NAMESPACE` is not set (local runs). */
const defaultNamespace = 'PetStoreInventory';

/** The shared metrics buffer; off with `POWERTOOLS_METRICS_DISABLED=true`. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || defaultNamespace,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? serviceName,
  // Powertools' own diagnostics go to the service logger.
  logger,
});
