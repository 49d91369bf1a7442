/** Starts a stand-in for API Gateway's key and usage plan API (docs/contract.md "Operator tooling"). */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnFreePort } from './free-port.ts';

/** An API key as the stand-in holds it. */
export interface StandInApiKey {
  id: string;
  name: string;
  value: string;
  enabled: boolean;
  description?: string;
}

/** A usage plan as the stand-in holds it: its stages, throttle and the ids of its API keys. */
export interface StandInUsagePlan {
  id: string;
  name: string;
  apiStages: { apiId: string; stage: string }[];
  throttle?: { rateLimit?: number; burstLimit?: number };
  keyIds: string[];
}

/** A running stand-in. */
export interface ApiGatewayStandIn {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_API_GATEWAY`. */
  endpoint: string;
  apiKeys: Map<string, StandInApiKey>;
  usagePlans: Map<string, StandInUsagePlan>;
  /** `METHOD path` of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

function newId(): string {
  return randomBytes(5).toString('hex');
}

function send(response: ServerResponse, status: number, body?: unknown, errorType?: string): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': newId(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  response.end(text);
}

async function jsonOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
}

/**
 * Starts the stand-in on a free port of 127.0.0.1 with the usage plans `plans` (no API keys).
 *
 * A protocol-level stand-in for API Gateway's control plane, which has no local emulator: an HTTP server
 * speaking the API Gateway REST API's JSON protocol (restJson1) for the API key and usage plan operations the
 * key tool uses (CreateApiKey, GetApiKeys, DeleteApiKey, CreateUsagePlan, GetUsagePlans, CreateUsagePlanKey),
 * so that its `--env` path runs offline through the real SDK client (`@aws-sdk/client-api-gateway`), its
 * request serializer and its response and error parsers. Written in the style of cloudformation-stand-in.ts.
 *
 * It keeps the rules of the real service that the tool depends on: an API key value is unique (409
 * ConflictException), lists are `{"item": [...]}`, an unknown id is 404 NotFoundException, and an API key can be
 * in only one usage plan per API stage (409). Errors carry `x-amzn-ErrorType` and `{"message"}`, as AWS sends
 * them. Every request is recorded as `METHOD path`.
 */
export async function startApiGatewayStandIn(
  plans: readonly Omit<StandInUsagePlan, 'keyIds'>[],
): Promise<ApiGatewayStandIn> {
  const apiKeys = new Map<string, StandInApiKey>();
  const usagePlans = new Map(plans.map((plan) => [plan.id, { ...plan, keyIds: [] as string[] }]));
  const requests: string[] = [];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const route = `${request.method} ${url.pathname}`;
    requests.push(route);
    const body = await jsonOf(request);
    const deleteKey = /^DELETE \/apikeys\/([^/]+)$/.exec(route);
    const addPlanKey = /^POST \/usageplans\/([^/]+)\/keys$/.exec(route);
    if (route === 'POST /apikeys') {
      const value = String(body.value ?? randomBytes(20).toString('hex'));
      if ([...apiKeys.values()].some((key) => key.value === value)) {
        return send(response, 409, { message: 'API Key already exists' }, 'ConflictException');
      }
      const key: StandInApiKey = {
        id: newId(),
        name: String(body.name),
        value,
        enabled: body.enabled === true,
        ...(body.description ? { description: String(body.description) } : {}),
      };
      apiKeys.set(key.id, key);
      return send(response, 201, key);
    }
    if (route === 'GET /apikeys') {
      const name = url.searchParams.get('name');
      const items = [...apiKeys.values()].filter((key) => !name || key.name.startsWith(name));
      return send(response, 200, { item: items.map(({ value: _value, ...key }) => key) });
    }
    if (deleteKey) {
      const id = decodeURIComponent(deleteKey[1] as string);
      if (!apiKeys.delete(id)) {
        return send(response, 404, { message: 'Invalid API Key identifier specified' }, 'NotFoundException');
      }
      for (const plan of usagePlans.values()) plan.keyIds = plan.keyIds.filter((keyId) => keyId !== id);
      return send(response, 202);
    }
    if (route === 'POST /usageplans') {
      const plan: StandInUsagePlan = {
        id: newId(),
        name: String(body.name),
        apiStages: (body.apiStages ?? []) as StandInUsagePlan['apiStages'],
        ...(body.throttle ? { throttle: body.throttle as StandInUsagePlan['throttle'] } : {}),
        keyIds: [],
      };
      usagePlans.set(plan.id, plan);
      const { keyIds: _keyIds, ...shown } = plan;
      return send(response, 201, shown);
    }
    if (route === 'GET /usageplans') {
      return send(response, 200, {
        item: [...usagePlans.values()].map(({ keyIds: _keyIds, ...plan }) => plan),
      });
    }
    if (addPlanKey) {
      const plan = usagePlans.get(decodeURIComponent(addPlanKey[1] as string));
      const key = apiKeys.get(String(body.keyId));
      if (!plan || !key)
        return send(response, 404, { message: 'Invalid Usage Plan or API Key' }, 'NotFoundException');
      const stages = (p: StandInUsagePlan) => p.apiStages.map((s) => `${s.apiId}/${s.stage}`);
      const conflict = [...usagePlans.values()].some(
        (other) => other.keyIds.includes(key.id) && stages(other).some((s) => stages(plan).includes(s)),
      );
      if (conflict) {
        return send(
          response,
          409,
          { message: 'Usage Plan already contains a key for this API stage' },
          'ConflictException',
        );
      }
      plan.keyIds.push(key.id);
      return send(response, 201, { id: key.id, type: 'API_KEY', name: key.name, value: key.value });
    }
    return send(response, 404, { message: `not supported: ${route}` }, 'NotFoundException');
  }

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  const { endpoint, close } = await listenOnFreePort(server);
  return { endpoint, apiKeys, usagePlans, requests, close };
}
