/**
 * The CDK app (`cdk.json` `"app": "node infra/app.ts"`): the two environments of docs/service-spec.md §9.2 as two stacks of
 * one class, `InventoryService-staging` and `InventoryService-production`, environment-agnostic (account and
 * region come from the deploying credentials), differing only by infra/settings.ts.
 *
 * cdk-nag's AwsSolutions checks run on every synthesis: an unacknowledged finding stops `cdk synth` and
 * `cdk deploy`.
 */
import { createServiceApp } from './service-app.ts';

createServiceApp().app.synth();
