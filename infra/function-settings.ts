/**
 * What sets one function apart from the others, as data keyed by its lib/api.ts name: memory and timeout,
 * variables of its own, the streams it reads, metric filters on its log group. infra/service-functions.ts renders
 * every row the same way.
 * @module
 */
import { FilterPattern, type IFilterPattern } from 'aws-cdk-lib/aws-logs';
import type { FunctionDefinition, Operation } from '#lib/api.ts';
import { webhookEnv } from '#lib/webhooks/webhook-env.ts';
import { eventFunctionSizing } from './change-events.ts';

/** Memory in MB and timeout in seconds. */
export interface Sizing {
  memoryMb: number;
  timeoutSeconds: number;
}

/** A CloudWatch Logs metric filter on a function's log group: one metric counted from its JSON log lines. */
export interface LogMetric {
  filterPattern: IFilterPattern;
  metricName: string;
  metricValue: string;
  dimensions: Readonly<Record<string, string>>;
}

/** The settings of one function besides the defaults (infra/service-function.ts) and its tables (lib/api.ts). */
export interface FunctionSettings {
  /** Memory and timeout other than 256 MB and 10 s. */
  sizing?: Sizing;
  /** Environment variables of its own. */
  environment?: Readonly<Record<string, string>>;
  /** True for the consumer of DynamoDB streams (infra/service-function.ts `readsStreams`). */
  readsStreams?: true;
  /** Metric filters on its log group, by construct id; the environment's metrics namespace added. */
  logMetrics?: Readonly<Record<string, LogMetric>>;
}

/** The functions with settings of their own, by lib/api.ts name; any other takes the defaults. */
export const functionSettings: Readonly<Record<string, FunctionSettings>> = {
  recordChanges: { sizing: eventFunctionSizing.recordChanges, readsStreams: true },
  fanOutWebhooks: { sizing: eventFunctionSizing.fanOutWebhooks },
  deliverWebhooks: { sizing: eventFunctionSizing.deliverWebhooks },
  // The SSRF guard's deployed policy, as the deliveries' (infra/change-events.ts).
  createWebhookEndpoint: { environment: { [webhookEnv.urlPolicy]: 'public-https' } },
  // InventoryUpdated (docs/operating.md "Metrics") counts updateInventory's audit lines
  // (lib/http/completion-log.ts), so a write logs one line, not a second EMF line for its metric.
  updateInventory: {
    logMetrics: {
      InventoryUpdatedMetricFilter: {
        filterPattern: FilterPattern.all(
          FilterPattern.stringValue('$.message', '=', 'write completed'),
          FilterPattern.numberValue('$.status', '=', 200),
        ),
        metricName: 'InventoryUpdated',
        metricValue: '1',
        dimensions: { service: '$.service' },
      },
    },
  },
};

/**
 * The settings of `definition`: its row of {@link functionSettings}, sized as its operation streams
 * (lib/api.ts `streaming`) when it does.
 */
export function settingsOf(definition: FunctionDefinition): FunctionSettings {
  const { streaming } = definition as Partial<Operation>;
  return { ...(streaming && { sizing: streaming }), ...functionSettings[definition.name] };
}
