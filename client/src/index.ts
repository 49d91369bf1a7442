/** The typed client of the pet store API (openapi-fetch, int64 as `bigint`): client/README.md "@pet-store/client". */
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { HttpMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { parseExactJson, stringifyExactJson } from './exact-json.ts';
import type { components, paths } from './schema.ts';

export { parseExactJson, stringifyExactJson } from './exact-json.ts';
export type { components, operations, paths } from './schema.ts';

/** The Error body of every error response (docs/contract.md "Errors"). */
export type ErrorBody = components['schemas']['Error'];

/** An error response of the API: its status and its Error body (`code`, `message`). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  /** The body as received; `code` and `message` come from it when it is an Error body. */
  readonly body: unknown;
  readonly code: ErrorBody['code'] | undefined;

  constructor(status: number, body: unknown) {
    const error = isErrorBody(body) ? body : undefined;
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.code = error?.code;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && 'code' in body && 'message' in body;
}

/** The optional or required init argument of a method, as openapi-fetch types it. */
type InitArgument<Init> =
  RequiredKeysOf<Init> extends never
    ? [(Init & { [key: string]: unknown })?]
    : [Init & { [key: string]: unknown }];

/** A method of the client: resolves to the success body (int64 as bigint), rejects with {@link ApiError}. */
export type ExactMethod<Method extends HttpMethod> = <
  Path extends ClientPathsWithMethod<Client<paths>, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  url: Path,
  ...init: InitArgument<Init>
) => Promise<
  NonNullable<FetchResponse<NonNullable<paths[Path][Method]>, Init, `${string}/${string}`>['data']>
>;

/** The client: one method per HTTP method of openapi.yaml. */
export interface PetStoreClient {
  GET: ExactMethod<'get'>;
  PATCH: ExactMethod<'patch'>;
  POST: ExactMethod<'post'>;
  /** Resolves to undefined on a 204 (deleteWebhookEndpoint). */
  DELETE: ExactMethod<'delete'>;
}

/** How to reach the API. */
export interface PetStoreClientOptions {
  /** The base URL, for example `http://127.0.0.1:3000/v1` or a stack's `BaseUrl`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/** Creates the client: int64 exact both ways, error responses thrown as {@link ApiError}. */
export function createPetStoreClient(options: PetStoreClientOptions): PetStoreClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.apiKey ? { headers: { authorization: `Bearer ${options.apiKey}` } } : {}),
    bodySerializer: stringifyExactJson,
  });
  const method =
    (name: 'GET' | 'PATCH' | 'POST' | 'DELETE') =>
    async (url: string, init?: Record<string, unknown>): Promise<unknown> => {
      // The body is read as text and parsed here: openapi-fetch's own parsing would round int64 to doubles.
      const request = client.request as (
        m: string,
        u: string,
        i: unknown,
      ) => Promise<FetchResponse<never, never, never>>;
      const { data, error, response } = await request(name, url, { ...init, parseAs: 'text' });
      if (error !== undefined || !response.ok) throw new ApiError(response.status, error);
      return data ? parseExactJson(data as string) : undefined;
    };
  return {
    GET: method('GET') as ExactMethod<'get'>,
    PATCH: method('PATCH') as ExactMethod<'patch'>,
    POST: method('POST') as ExactMethod<'post'>,
    DELETE: method('DELETE') as ExactMethod<'delete'>,
  };
}
