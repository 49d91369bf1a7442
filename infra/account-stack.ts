/** The once-per-account stack, API Gateway's CloudWatch role: docs/operating.md "Once per account and region". */
import { RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

/** The stack name of the once-per-account stack. */
export const accountStackName = 'PetStore-ApiGatewayAccount';

/**
 * The once-per-account stack: API Gateway's CloudWatch role as the account's `cloudWatchRoleArn`, both
 * retained (one value per account and region, so no service stack may own it).
 */
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
