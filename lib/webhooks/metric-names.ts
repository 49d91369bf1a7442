/** The metrics deliverWebhooks emits (Count, dimension `service`) and the stack alarms on: docs/operating.md "Metrics". */
export const webhookMetrics = {
  /** 1 per delivery kept as a failure after its schedule's last attempt. */
  deliveriesFailed: 'WebhookDeliveriesFailed',
  /** 1 per endpoint the breaker disabled (lib/webhooks/breaker.ts). */
  endpointsDisabled: 'WebhookEndpointsDisabled',
} as const;
