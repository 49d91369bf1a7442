/** One App with both environments' stacks and cdk-nag registered: docs/operating.md "Checks on every synthesis". */
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiGatewayAccountStack, accountStackName } from './account-stack.ts';
import { InventoryStack } from './inventory-stack.ts';
import { type EnvironmentName, environments, stackName } from './settings.ts';

/** The app and its stacks, keyed by environment. */
export interface ServiceApp {
  app: App;
  stacks: Record<EnvironmentName, InventoryStack>;
  /** The once-per-account stack (API Gateway's CloudWatch role), deployed apart from the service stacks. */
  account: ApiGatewayAccountStack;
}

/**
 * A new App with `InventoryService-staging`, `InventoryService-production` and the once-per-account
 * `PetStore-ApiGatewayAccount`.
 * @param props App props (tests pass `outdir` and context); `analyticsReporting` is off: the templates carry no
 *   `AWS::CDK::Metadata` resource.
 */
export function createServiceApp(props: AppProps = {}): ServiceApp {
  const app = new App({ analyticsReporting: false, ...props });
  const stacks = {} as Record<EnvironmentName, InventoryStack>;
  for (const settings of Object.values(environments)) {
    stacks[settings.name] = new InventoryStack(app, stackName(settings.name), {
      settings,
      description: `Pet store inventory service, ${settings.name} (stage v1)`,
    });
  }
  const account = new ApiGatewayAccountStack(app, accountStackName, {
    description:
      'API Gateway account settings (CloudWatch role for access logs), once per account and region',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stacks, account };
}
