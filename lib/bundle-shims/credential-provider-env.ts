/** Bundle stand-in for the SDK's credential chain, the environment alone: docs/architecture.md "Bundles". */
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
