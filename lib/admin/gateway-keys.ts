/** Each deployed key's API Gateway API key and usage plan: docs/operating.md "API keys". */
import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  paginateGetApiKeys,
  paginateGetUsagePlans,
} from '@aws-sdk/client-api-gateway';
import { stageName } from '#lib/api.ts';
import { keyIdOf, usageIdentifierOf } from '#lib/auth/api-key.ts';
import type { Throttle } from '#lib/auth/authorize.ts';

/** What the key tool does in API Gateway for a deployed environment (nothing for the local store). */
export interface GatewayKeys {
  /** Creates the key's API key and adds it to the usage plan of its throttle (the default plan without one). */
  add(keyDigest: string, keyName: string, throttle?: Throttle): Promise<void>;
  /** Deletes the key's API key (which removes it from its usage plan); nothing when there is none. */
  remove(keyDigest: string): Promise<void>;
  /** True when the key has its API key. */
  has(keyDigest: string): Promise<boolean>;
}

/** Where a stack's keys live in API Gateway: from the stack outputs `RestApiId` and `UsagePlanId`. */
export interface GatewayTarget {
  stackName: string;
  restApiId: string;
  defaultUsagePlanId: string;
}

/**
 * The usage plans and API keys of `target` through `client`: each key's API key (value: its usage identifier)
 * in the default plan, or in a plan of its own throttle created on first use.
 */
export function gatewayKeys(client: APIGatewayClient, target: GatewayTarget): GatewayKeys {
  const apiKeyName = (keyDigest: string) => `${target.stackName}-${keyIdOf(keyDigest)}`;

  async function usagePlanId(throttle: Throttle | undefined): Promise<string> {
    if (!throttle) return target.defaultUsagePlanId;
    const name = `${target.stackName}-rate-${throttle.rateLimit}-burst-${throttle.burstLimit}`;
    for await (const page of paginateGetUsagePlans({ client }, {})) {
      const existing = page.items?.find((plan) => plan.name === name);
      if (existing?.id) return existing.id;
    }
    const created = await client.send(
      new CreateUsagePlanCommand({
        name,
        description: `Per-key throttle of ${throttle.rateLimit} requests/s, burst ${throttle.burstLimit} (keys tool)`,
        apiStages: [{ apiId: target.restApiId, stage: stageName }],
        throttle,
      }),
    );
    if (!created.id) throw new Error(`API Gateway did not return the id of the usage plan ${name}`);
    return created.id;
  }

  /** The ids of the API keys named for `keyDigest` (none, or one). */
  async function apiKeyIds(keyDigest: string): Promise<string[]> {
    const name = apiKeyName(keyDigest);
    const ids: string[] = [];
    for await (const page of paginateGetApiKeys({ client }, { nameQuery: name })) {
      for (const apiKey of page.items ?? []) if (apiKey.name === name && apiKey.id) ids.push(apiKey.id);
    }
    return ids;
  }

  return {
    async add(keyDigest, keyName, throttle) {
      const planId = await usagePlanId(throttle);
      const apiKey = await client.send(
        new CreateApiKeyCommand({
          name: apiKeyName(keyDigest),
          description: `API key "${keyName}" (keys tool); its value is the key's usage identifier, not the key`,
          enabled: true,
          value: usageIdentifierOf(keyDigest),
        }),
      );
      if (!apiKey.id) throw new Error('API Gateway did not return the id of the API key');
      await client.send(
        new CreateUsagePlanKeyCommand({ usagePlanId: planId, keyId: apiKey.id, keyType: 'API_KEY' }),
      );
    },
    async remove(keyDigest) {
      for (const id of await apiKeyIds(keyDigest)) await client.send(new DeleteApiKeyCommand({ apiKey: id }));
    },
    async has(keyDigest) {
      return (await apiKeyIds(keyDigest)).length > 0;
    },
  };
}
