/** Bundle stand-in for `@aws-sdk/endpoint-cache`, endpoint discovery's cache: docs/architecture.md "Bundles". */

const message = 'endpoint discovery is not bundled (see lib/bundle-shims/no-endpoint-cache.ts)';

/**
 * Constructed by every DynamoDB client (`resolveEndpointDiscoveryConfig`), used by no command the project sends:
 * no command of the bundled clients adds the endpoint discovery middleware. Any use throws.
 */
export class EndpointCache {
  getEndpoint(_key: string): never {
    throw new Error(message);
  }
  get(_key: string): never {
    throw new Error(message);
  }
  set(_key: string, _endpoints: unknown): never {
    throw new Error(message);
  }
  delete(_key: string): never {
    throw new Error(message);
  }
  has(_key: string): never {
    throw new Error(message);
  }
  clear(): never {
    throw new Error(message);
  }
}
