/**
 * Stand-in for `@aws-sdk/credential-provider-node` inside the Lambda bundles (esbuild `alias` in
 * infra/bundling.ts); never used by the unbundled code (local server, tools, tests keep the SDK's full chain).
 *
 * The SDK's default credential chain tries, in order: environment variables, SSO, shared ini files, a
 * credential process, a web identity token file, then the ECS and EC2 metadata services. Bundled, it brings
 * the STS, SSO, SSO-OIDC and Signin clients, XML and query protocols and `node:child_process`, a large share
 * of each bundle, parsed at every cold start. In Lambda only its first link ever answers: the runtime
 * puts the execution role's credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
 * `AWS_SESSION_TOKEN`. This module is that first link alone (`fromEnv`); the client memoizes what it returns,
 * as it does with the full chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The settings the client passes to its credential provider (a logger, among others). */
export type DefaultProviderInit = Parameters<typeof fromEnv>[0];

/**
 * The credential provider the DynamoDB client builds at init: credentials from the environment variables,
 * or a `CredentialsProviderError` when they are not set.
 */
export function defaultProvider(init: DefaultProviderInit = {}): ReturnType<typeof fromEnv> {
  return fromEnv(init);
}
