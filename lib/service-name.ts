/** The service's name: `service` of its logs and metrics (`POWERTOOLS_SERVICE_NAME`, set by the stack). */
export const serviceName = 'pet-store-inventory';
