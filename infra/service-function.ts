/** One Lambda function of the service with every default (docs/style.md, the Powertools example app). */
import { type CfnResource, Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { connectionTimeoutMs, maxAttempts, requestTimeoutMs } from '#lib/clients/dynamodb.ts';
import { cdkBundling, projectRoot } from './bundling.ts';

/**
 * Function timeout: 10 s, above the DynamoDB client's worst case of maxAttempts x (connection + request
 * timeout) = 3 x 3 s = 9 s (lib/clients/dynamodb.ts), so an unreachable database ends in the function's own 503
 * rather than a Lambda timeout. The stack test asserts the inequality.
 */
export const defaultTimeout = Duration.seconds(10);

/** The DynamoDB client's worst case for one request, in milliseconds (see {@link defaultTimeout}). */
export const sdkWorstCaseMs = maxAttempts * (connectionTimeoutMs + requestTimeoutMs);

/** The sentence a stream consumer's acknowledgement of `Resource::*` adds (ServiceFunctionProps `readsStreams`). */
const streamsReason =
  " As the consumer of the tables' DynamoDB streams (docs/contract.md \"History and events\"), its event source mapping needs dynamodb:ListStreams, which lists the account's streams and is granted on Resource * (as in the AWS managed policy AWSLambdaDynamoDBExecutionRole and CDK's grantStreamRead); reading the records is granted on the streams' ARNs only.";

/** The alias API Gateway invokes on every function: the version that serves clients (CodeDeploy moves it). */
export const liveAlias = 'live';

/** Properties of a {@link ServiceFunction}. */
export interface ServiceFunctionProps {
  /** Handler module relative to the project root, exporting `handler` (lib/api.ts `entry`). */
  entry: string;
  /** One line shown in the Lambda console. */
  description: string;
  /** Environment variables besides the table variables set by {@link ServiceFunction.bindTable}. */
  environment: Record<string, string>;
  /** Retention of the function's log group. */
  logRetention: RetentionDays;
  /** What happens to the log group when it leaves the stack. */
  logRemovalPolicy: RemovalPolicy;
  /** Memory and timeout other than the defaults (a streaming function, lib/api.ts `streaming`). */
  sizing?: { memoryMb: number; timeoutSeconds: number };
  /** Reserved concurrency (infra/settings.ts `reservedConcurrency`). */
  reservedConcurrency: number;
  /** True for a consumer of DynamoDB streams ({@link ServiceFunction.readStream}): its role lists streams on `*`. */
  readsStreams?: boolean;
}

/** What {@link ServiceFunction.bindTable} takes: the table, the variable carrying its name, the actions. */
export interface TableBinding {
  /** The table the function reads or writes. */
  table: ITable;
  /** Environment variable that receives the table name (lib/api.ts `tables.*.env`). */
  env: string;
  /**
   * DynamoDB actions (e.g. `dynamodb:UpdateItem`) granted on the table's ARN only, `dynamodb:Query` on the
   * ARNs of the named `indexes` only (on the table's ARN when it has none); never a wildcard.
   */
  actions: readonly string[];
  /** The table's global secondary indexes by name (lib/api.ts `globalIndexes`). */
  indexes: readonly string[];
}

/** A service Lambda function: runtime, memory, timeout, logs, role, tracing and alias `live` in one place. */
export class ServiceFunction extends NodejsFunction {
  /** The alias {@link liveAlias} on this deployment's version: what API Gateway invokes. */
  readonly live: Alias;
  /** Whether {@link readStream} may grant stream reads (ServiceFunctionProps `readsStreams`). */
  private readonly readsStreams: boolean;
  /** Whether the role already lists streams. */
  private listsStreams = false;

  /** @param id construct id and CloudFormation logical id, e.g. `ListInventoryFunction` */
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}LogGroup`, {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}: writes its own log group and the table actions bound to it, nothing else`,
    });
    super(scope, id, {
      entry: `${projectRoot}${props.entry}`,
      projectRoot,
      depsLockFilePath: `${projectRoot}package-lock.json`,
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.sizing?.memoryMb ?? 256,
      timeout: props.sizing ? Duration.seconds(props.sizing.timeoutSeconds) : defaultTimeout,
      reservedConcurrentExecutions: props.reservedConcurrency,
      bundling: cdkBundling,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      loggingFormat: LoggingFormat.JSON,
      logGroup,
      role,
      tracing: Tracing.ACTIVE,
    });
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `Active X-Ray tracing (docs/operating.md "Tracing"): xray:PutTraceSegments and xray:PutTelemetryRecords accept no resource-level permission (AWS service authorization reference), so Resource * is their only grant; each trace id is in the access logs.${props.readsStreams ? streamsReason : ''}`,
    });
    this.readsStreams = props.readsStreams === true;
    this.live = new Alias(scope, `${id}Alias`, { aliasName: liveAlias, version: this.currentVersion });
    // Fixed, readable logical ids, so `sam local invoke <LogicalId>` and sam/env-vars.json can name them.
    for (const [construct, logicalId] of [
      [this, id],
      [role, `${id}Role`],
      [logGroup, `${id}LogGroup`],
      [this.live, `${id}Alias`],
    ] as const) {
      (construct.node.defaultChild as CfnResource).overrideLogicalId(logicalId);
    }
  }

  /**
   * Lets the function's event source mapping read `table`'s DynamoDB stream, as Lambda's execution role needs
   * (AWS Lambda Developer Guide, "Using AWS Lambda with Amazon DynamoDB", execution role permissions):
   * DescribeStream, GetRecords and GetShardIterator on the stream's ARN, ListStreams on `*` (it lists the
   * account's streams; AWS managed policy AWSLambdaDynamoDBExecutionRole).
   * @throws Error when the function was not made with `readsStreams` (its role's acknowledgement would not say so)
   */
  readStream(table: ITable): void {
    if (!this.readsStreams) throw new Error(`${this.node.id} was not made with readsStreams`);
    const streamArn = table.tableStreamArn;
    if (!streamArn) throw new Error(`table ${table.node.id} has no stream`);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [streamArn],
      }),
    );
    if (!this.listsStreams) {
      this.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
      this.listsStreams = true;
    }
  }

  /**
   * Gives the function one table: sets `binding.env` to the table's name and grants exactly
   * `binding.actions` (least privilege, lib/api.ts `access`): Query on the table's named indexes, every other
   * action on the table itself.
   * @throws Error when an action is not a plain `dynamodb:<Action>` name (a wildcard would widen the grant)
   */
  bindTable(binding: TableBinding): void {
    for (const action of binding.actions) {
      if (!/^dynamodb:[A-Za-z]+$/.test(action)) throw new Error(`not a single DynamoDB action: ${action}`);
    }
    this.addEnvironment(binding.env, binding.table.tableName);
    const { tableArn } = binding.table;
    // A table with indexes is queried through them (the list indexes); one without, on its own keys (a pet's
    // change records).
    const queriesIndexes = binding.indexes.length > 0;
    const onIndexes = binding.actions.filter((action) => queriesIndexes && action === 'dynamodb:Query');
    const onTable = binding.actions.filter((action) => !onIndexes.includes(action));
    if (onTable.length > 0)
      this.addToRolePolicy(new PolicyStatement({ actions: onTable, resources: [tableArn] }));
    if (onIndexes.length > 0) {
      const resources = binding.indexes.map((index) => `${tableArn}/index/${index}`);
      this.addToRolePolicy(new PolicyStatement({ actions: onIndexes, resources }));
    }
  }
}
