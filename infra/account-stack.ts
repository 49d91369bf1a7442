/**
 * The account-wide API Gateway setting the service needs, deployed once per account and region, apart from the
 * service stacks (docs/contract.md "Operator tooling"; README "Once per account and region"): the IAM role that
 * lets API Gateway write the stages' access logs to CloudWatch Logs, set as the account's `cloudWatchRoleArn`
 * (`AWS::ApiGateway::Account`). It is one value per account and region: declared in each service stack,
 * staging and production in one account would overwrite each other's, and deleting either stack would take it
 * from the other. Both are retained when this stack is deleted, so logging keeps working.
 */
import { RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

/** The stack name of the once-per-account stack. */
export const accountStackName = 'PetStore-ApiGatewayAccount';

/** The once-per-account stack (see the module docstring). */
export class ApiGatewayAccountStack extends Stack {
  /** The role API Gateway assumes to write logs. */
  readonly cloudWatchRole: Role;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    this.cloudWatchRole = new Role(this, 'CloudWatchRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description:
        'Lets API Gateway write the access logs of every REST API stage of this account and region',
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    this.cloudWatchRole.applyRemovalPolicy(RemovalPolicy.RETAIN);
    const account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.cloudWatchRole.roleArn });
    account.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(this.cloudWatchRole).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-wide role API Gateway needs to write the access logs of the service stacks; the AWS managed policy is the one AWS documents for it.',
    });
  }
}
