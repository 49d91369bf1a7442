/**
 * Environment variables of the webhook functions (set by the stack: infra/change-events.ts, infra/function-settings.ts;
 * overridden by the local API: local/service.ts). The event bus's name is the change events' (lib/events/changes.ts
 * `eventsEnv`).
 * @module
 */

/** The webhook functions' environment variable names. */
export const webhookEnv = {
  /**
   * The URL of the SQS queue of webhook deliveries, one message per delivery (endpoint x event): the fast
   * lane, first attempts of enabled endpoints (docs/architecture.md "Events and webhooks").
   */
  deliveryQueueUrl: 'WEBHOOK_DELIVERY_QUEUE_URL',
  /** The URL of the slow lane's delivery queue: retries, and the deliveries of endpoints not enabled. */
  slowLaneQueueUrl: 'WEBHOOK_SLOW_LANE_QUEUE_URL',
  /** The slow lane queue's ARN: the delivery function tells its records (`eventSourceARN`) from the fast lane's. */
  slowLaneQueueArn: 'WEBHOOK_SLOW_LANE_QUEUE_ARN',
  /** Seconds of failed attempts only after which an endpoint is disabled (lib/webhooks/delivery-settings.ts). */
  disableAfterSeconds: 'WEBHOOK_DISABLE_AFTER_SECONDS',
  /** The delays before each retry of a delivery, in seconds, comma-separated (lib/webhooks/delivery-settings.ts). */
  retryDelays: 'WEBHOOK_RETRY_DELAYS',
  /** `public-https` deployed; `local` also allows `http://127.0.0.1` and `http://localhost` (the SSRF guard). */
  urlPolicy: 'WEBHOOK_URL_POLICY',
} as const;
