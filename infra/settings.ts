/** Per-environment settings, the one place staging and production differ (docs/service-spec.md §9.2). */

/** The deployed environments (docs/service-spec.md §9.2). */
export type EnvironmentName = 'staging' | 'production';

/** Powertools log levels accepted by `POWERTOOLS_LOG_LEVEL`. */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** Thresholds of the production alarms; every alarm notifies the stack's alarm topic. */
export interface AlarmSettings {
  /** Fraction of API requests answered 5XX over one period (API Gateway `5XXError` average), e.g. 0.01 = 1%. */
  api5xxRate: number;
  /** p99 of API Gateway `Latency` over one period, in milliseconds. */
  apiLatencyP99Ms: number;
  /** Length of one evaluation period, in seconds (a multiple of 60). */
  periodSeconds: number;
  /** Consecutive breaching periods before an alarm fires. */
  evaluationPeriods: number;
  /**
   * The age of the oldest stream record recordChanges has not yet processed (Lambda `IteratorAge`, Maximum over
   * one period) above which the change records are late, in milliseconds (docs/contract.md: within 5 s).
   */
  changeRecordsIteratorAgeMs: number;
}

/**
 * How CodeDeploy moves each function's alias `live` to a new version (infra/gradual-deployment.ts):
 * `allAtOnce` shifts all traffic at once; `canary` shifts `percentage` % first and the rest after
 * `intervalMinutes`; `linear` shifts `percentage` % more every `intervalMinutes` until all traffic has moved.
 */
export type TrafficShifting =
  | { type: 'allAtOnce' }
  | { type: 'canary' | 'linear'; percentage: number; intervalMinutes: number };
/** When a deprecated operation (lib/api.ts `deprecated`) was deprecated and when it is retired: ISO 8601 date-times. */
export interface DeprecationSettings {
  /** Sent as `Deprecation` (RFC 9745). */
  deprecatedAt: string;
  /** Sent as `Sunset` (RFC 8594); from then on the operation answers 410 `gone`. */
  sunsetAt: string;
}

/** getPetById's dates (docs/contract.md "Pets"): the same in both environments today. */
const getPetByIdDeprecation: DeprecationSettings = {
  deprecatedAt: '2026-11-23T00:00:00Z',
  sunsetAt: '2027-06-30T23:59:59Z',
};

/** Requests per second (steady rate) and burst (token bucket size) of a throttle. */
export interface ThrottleSettings {
  rateLimit: number;
  burstLimit: number;
}

/** The API keys' lifecycle and per-key throttling (docs/contract.md "Authentication and authorization"). */
export interface ApiKeySettings {
  /**
   * The throttle of a key created without `--rate`: the stack's default usage plan (one token bucket per key),
   * and the local API's per-key limit.
   */
  throttle: ThrottleSettings;
  /** Days a new key is valid unless `keys create` is given `--expires-in-days` or `--no-expiry`. */
  expiresInDays: number;
  /** Hours a key replaced by `keys rotate` keeps working, so its clients can switch to the new key. */
  rotationGraceHours: number;
}

/** Change records' events and webhooks (docs/contract.md "History and events"; docs/operating.md "Events and webhooks"). */
export interface EventSettings {
  /** Days the event bus's archive keeps each event for replay (EventBridge archive `RetentionDays`). */
  archiveRetentionDays: number;
  /**
   * The seconds before each retry of a webhook delivery (`WEBHOOK_RETRY_DELAYS`): one attempt more than there are
   * delays; the last failure is kept in the failures table. Each at most 43,200 (SQS's visibility timeout limit).
   */
  webhookRetryDelaysSeconds: readonly number[];
}

/**
 * The Standard Webhooks (Svix) schedule: retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, so 8 attempts
 * spread over 27.6 hours, at least the 24 hours docs/contract.md "History and events" asks for.
 */
const standardWebhooksRetryDelays = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;

/** Everything that differs between two deployments of the one stack class. */
export interface EnvironmentSettings {
  /** The environment, used in the stack name `InventoryService-<name>` and in descriptions. */
  name: EnvironmentName;
  /**
   * What CloudFormation does with the tables and log groups when they leave the stack: `retain` keeps the
   * data (production), `destroy` deletes it (staging, whose data is disposable).
   */
  removalPolicy: 'retain' | 'destroy';
  /** DynamoDB point-in-time recovery (35 days of continuous backups) on both tables. */
  pointInTimeRecovery: boolean;
  /** DynamoDB deletion protection on both tables: a table cannot be deleted until it is switched off. */
  deletionProtection: boolean;
  /** Days the function and API access logs are kept; a value CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, ...). */
  logRetentionDays: number;
  /** `POWERTOOLS_LOG_LEVEL` of every function. */
  logLevel: LogLevel;
  /** Stage-wide throttling of the API: steady-state requests per second and burst (token bucket size). */
  throttling: ThrottleSettings;
  /** API keys: default per-key throttle, default expiry, rotation grace period. */
  apiKeys: ApiKeySettings;
  /**
   * Reserved concurrency of each function (operations and authorizer): the most executions one function can
   * hold, so a hanging dependency cannot take the account's whole concurrency. The account needs at least
   * the sum over both stacks plus 100 unreserved (Lambda's minimum).
   */
  reservedConcurrency: number;
  /** CloudWatch namespace of the functions' custom metrics (`POWERTOOLS_METRICS_NAMESPACE`). */
  metricsNamespace: string;
  /** Alarm thresholds, or undefined for an environment without alarms (no topic, no alarm resources). */
  alarms?: AlarmSettings;
  /**
   * How a deployment moves traffic to the new version of each function; with `alarms`, the API alarms and each
   * function's new-version errors alarm stop it and roll it back (docs/operating.md "Gradual deployments and rollback").
   */
  trafficShifting: TrafficShifting;
  /**
   * Origins (`https://host[:port]`, exactly as a browser sends `Origin`) whose pages may call the API: preflight,
   * gateway responses and the functions' responses carry the CORS headers for them (docs/operating.md "CORS"). Empty: no
   * CORS at all (no OPTIONS method, no CORS header).
   */
  corsAllowedOrigins: readonly string[];
  /** The dates of the deprecated operations (getPetById). */
  deprecation: DeprecationSettings;
  /** The event bus's archive and the webhook deliveries' retries. */
  events: EventSettings;
}

/** Each setting side by side: `[staging, production]` (docs/service-spec.md §9.2; docs/operating.md "Environments"). */
const sideBySide: {
  [Setting in keyof EnvironmentSettings]-?: readonly [
    EnvironmentSettings[Setting],
    EnvironmentSettings[Setting],
  ];
} = {
  name: ['staging', 'production'],
  removalPolicy: ['destroy', 'retain'],
  pointInTimeRecovery: [false, true],
  deletionProtection: [false, true],
  logRetentionDays: [14, 90],
  logLevel: ['DEBUG', 'INFO'],
  throttling: [
    { rateLimit: 20, burstLimit: 40 },
    { rateLimit: 100, burstLimit: 200 },
  ],
  apiKeys: [
    { throttle: { rateLimit: 10, burstLimit: 20 }, expiresInDays: 30, rotationGraceHours: 24 },
    { throttle: { rateLimit: 25, burstLimit: 50 }, expiresInDays: 90, rotationGraceHours: 72 },
  ],
  reservedConcurrency: [10, 50],
  metricsNamespace: ['PetStoreInventory/staging', 'PetStoreInventory/production'],
  alarms: [
    undefined,
    {
      api5xxRate: 0.01,
      apiLatencyP99Ms: 1000,
      periodSeconds: 300,
      evaluationPeriods: 1,
      changeRecordsIteratorAgeMs: 60_000,
    },
  ],
  trafficShifting: [{ type: 'allAtOnce' }, { type: 'canary', percentage: 10, intervalMinutes: 10 }],
  corsAllowedOrigins: [[], []],
  deprecation: [getPetByIdDeprecation, getPetByIdDeprecation],
  events: [
    { archiveRetentionDays: 7, webhookRetryDelaysSeconds: standardWebhooksRetryDelays },
    { archiveRetentionDays: 90, webhookRetryDelaysSeconds: standardWebhooksRetryDelays },
  ],
};

/** The settings of one environment: column `column` of {@link sideBySide}, without the settings it leaves unset. */
function environmentSettings(column: 0 | 1): EnvironmentSettings {
  const entries = Object.entries(sideBySide).map(([setting, values]) => [setting, values[column]]);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as EnvironmentSettings;
}

/** The settings of each environment (docs/service-spec.md §9.2). */
export const environments: Readonly<Record<EnvironmentName, EnvironmentSettings>> = {
  staging: environmentSettings(0),
  production: environmentSettings(1),
};

/** The stack name of an environment: `InventoryService-staging`, `InventoryService-production`. */
export function stackName(environment: EnvironmentName): string {
  return `InventoryService-${environment}`;
}
