/**
 * The logical ids of the stateful resources, pinned: CloudFormation replaces a resource whose logical id changes,
 * and a replaced table, queue or log group loses what it holds (a replaced API or usage plan, its URL and its keys'
 * plan). A refactoring of infra/ must keep every id below; a new resource adds its id here. The outputs the
 * tools read are pinned by name likewise. Read from the run's one synthesis (./synth.ts).
 */
import { describe, expect, it } from 'vitest';
import { type EnvironmentName, environments } from '#infra/settings.ts';
import { resourcesOfType, synthesized } from './synth.ts';

/** The functions' log groups (`<function logical id>LogGroup`). */
const functionLogGroups = [
  'ListInventoryFunctionLogGroup',
  'GetInventoryItemFunctionLogGroup',
  'UpdateInventoryFunctionLogGroup',
  'BatchUpdateInventoryFunctionLogGroup',
  'AddPetFunctionLogGroup',
  'GetPetByIdFunctionLogGroup',
  'PlaceOrderFunctionLogGroup',
  'ListOrdersFunctionLogGroup',
  'GetOrderByIdFunctionLogGroup',
  'UpdateOrderFunctionLogGroup',
  'ListInventoryHistoryFunctionLogGroup',
  'ListEventsFunctionLogGroup',
  'CreateWebhookEndpointFunctionLogGroup',
  'ListWebhookEndpointsFunctionLogGroup',
  'DeleteWebhookEndpointFunctionLogGroup',
  'ListWebhookAttemptsFunctionLogGroup',
  'SendTestWebhookFunctionLogGroup',
  'RotateWebhookSecretFunctionLogGroup',
  'AuthorizerFunctionLogGroup',
  'RecordChangesFunctionLogGroup',
  'FanOutWebhooksFunctionLogGroup',
  'DeliverWebhooksFunctionLogGroup',
];

/** The stateful resources of every environment, by CloudFormation type. */
const everyEnvironment: Record<string, string[]> = {
  'AWS::DynamoDB::Table': [
    'InventoryTable',
    'ApiKeysTable',
    'OrdersTable',
    'IdempotencyTable',
    'InventoryHistoryTable',
    'EventsTable',
    'WebhookSubscriptionsTable',
    'WebhookEndpointOwnersTable',
    'WebhookFailuresTable',
    'WebhookAttemptsTable',
  ],
  'AWS::SQS::Queue': [
    'ChangeRecordsFailureQueue',
    'WebhookFanOutDeadLetterQueue',
    'ChangeEventsQueue',
    'WebhookDeliveryDeadLetterQueue',
    'WebhookDeliveryQueue',
    'WebhookSlowLaneQueue',
  ],
  'AWS::Events::EventBus': ['EventBus'],
  'AWS::Events::Archive': ['EventArchive'],
  'AWS::Logs::LogGroup': [...functionLogGroups, 'ApiAccessLogs50B185DB'],
  // A stream mapping replaced starts again from the oldest record kept.
  'AWS::Lambda::EventSourceMapping': [
    'RecordChangesInventoryStreamMapping',
    'RecordChangesOrdersStreamMapping',
    'FanOutWebhooksQueueMapping',
    'DeliverWebhooksQueueMapping',
    'DeliverWebhooksSlowLaneMapping',
  ],
  'AWS::ApiGateway::RestApi': ['ApiRestApiE35FEAFE'],
  'AWS::ApiGateway::UsagePlan': ['ApiRestApiDefaultUsagePlanB7E1C7BB'],
};

/** The stateful resources of each environment. */
const pinned: Record<EnvironmentName, Record<string, string[]>> = {
  staging: everyEnvironment,
  production: { ...everyEnvironment, 'AWS::SNS::Topic': ['AlarmsTopic3A2DFEBA'] },
};

/** The outputs of every environment, which the tools and tests read by name. */
const outputs = [
  'BaseUrl',
  'RestApiId',
  'UsagePlanId',
  'InventoryTableName',
  'ApiKeysTableName',
  'InventoryHistoryTableName',
  'WebhookSubscriptionsTableName',
  'WebhookFailuresTableName',
  'WebhookEndpointOwnersTableName',
  'WebhookAttemptsTableName',
  'WebhookDeliveryQueueUrl',
  'ChangeRecordsFailureQueueUrl',
  'EventBusName',
];

describe.each(Object.keys(environments) as EnvironmentName[])('%s stack', (name) => {
  const json = () => synthesized().environments[name].json;

  it.each(Object.entries(pinned[name]))('keeps the logical id of every %s it had', (type, ids) => {
    expect(Object.keys(resourcesOfType(json(), type))).toEqual(expect.arrayContaining(ids));
  });

  it('keeps the name of every output the tools read', () => {
    expect(Object.keys(json().Outputs ?? {})).toEqual(expect.arrayContaining(outputs));
  });
});
