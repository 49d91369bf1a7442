/** The typed client of the pet store API (openapi-fetch, int64 as `bigint`): client/README.md "@pet-store/client". */
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { HttpMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { parseExactJson, stringifyExactJson } from './exact-json.ts';
import { nextLink } from './link-header.ts';
import type { components, paths } from './schema.ts';

export { parseExactJson, stringifyExactJson } from './exact-json.ts';
export type { components, operations, paths } from './schema.ts';

/** The Error body of every error response (docs/contract.md "Errors"). */
export type ErrorBody = components['schemas']['Error'];

/**
 * An error response of the API: its status, its Error body (`code`, `message`) and the Fetch `Response`, whose
 * headers a client reads (`Retry-After` on a 429 or 503).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  /** The body as received; `code` and `message` come from it when it is an Error body. */
  readonly body: unknown;
  readonly code: ErrorBody['code'] | undefined;
  /** The response, its body already read: `error.response.headers.get('Retry-After')`. */
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const error = isErrorBody(body) ? body : undefined;
    super(error?.message ?? `HTTP ${response.status}`);
    this.status = response.status;
    this.body = body;
    this.code = error?.code;
    this.response = response;
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

/** The success body of `Method` on `Path` (int64 as bigint), as openapi-fetch types its `data`. */
export type SuccessBody<Path extends keyof paths, Method extends HttpMethod, Init> = NonNullable<
  FetchResponse<NonNullable<paths[Path][Method]>, Init, `${string}/${string}`>['data']
>;

/**
 * A success body with its response, named as openapi-fetch names them (`data`, `response`): the status and
 * headers (`ETag`, `Location`, `Link`, `Idempotent-Replayed`) are `response.status` and `response.headers`.
 */
export interface ExactResponse<Data> {
  data: Data;
  /** The Fetch `Response`, its body already read into `data`. */
  response: Response;
}

/** A method of the client: resolves to the success body (int64 as bigint), rejects with {@link ApiError}. */
export type ExactMethod<Method extends HttpMethod> = <
  Path extends ClientPathsWithMethod<Client<paths>, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  url: Path,
  ...init: InitArgument<Init>
) => Promise<SuccessBody<Path, Method, Init>>;

/** As {@link ExactMethod}, resolving to the body with its response (status and headers). */
export type ExactMethodWithResponse<Method extends HttpMethod> = <
  Path extends ClientPathsWithMethod<Client<paths>, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  url: Path,
  ...init: InitArgument<Init>
) => Promise<ExactResponse<SuccessBody<Path, Method, Init>>>;

/** The operations paged by `Link` rel="next": listInventory (with `limit`), listInventoryHistory, listOrders, listEvents. */
export type PagedPath = '/inventory' | '/inventory/{petId}/history' | '/store/orders' | '/events';

/**
 * Paths whose last page links too (listEvents: the feed goes on, openapi.yaml): there the end for now is a page
 * with fewer items than its `limit`, and the last page's `Link` is where to continue later.
 */
const feedPaths: ReadonlySet<string> = new Set<PagedPath>(['/events']);

/** The client: one method per HTTP method of openapi.yaml, the same with the response, and a pager. */
export interface PetStoreClient {
  GET: ExactMethod<'get'>;
  PATCH: ExactMethod<'patch'>;
  POST: ExactMethod<'post'>;
  /** Resolves to undefined on a 204 (deleteWebhookEndpoint). */
  DELETE: ExactMethod<'delete'>;
  /**
   * The same methods resolving to `{ data, response }`: the body and the response's status and headers.
   * @example const { data, response } = await api.withResponse.POST('/store/orders', { body }); response.headers.get('Location')
   */
  withResponse: {
    GET: ExactMethodWithResponse<'get'>;
    PATCH: ExactMethodWithResponse<'patch'>;
    POST: ExactMethodWithResponse<'post'>;
    DELETE: ExactMethodWithResponse<'delete'>;
  };
  /**
   * Every page of a paged list, each as `{ data, response }`, following `Link` rel="next" until the last page
   * (for listEvents, until a page shorter than its `limit`). Rejects with {@link ApiError} as the methods do.
   * @example for await (const { data } of api.pages('/store/orders', { params: { query: { limit: 100 } } })) orders.push(...data)
   */
  pages<Path extends PagedPath, Init extends MaybeOptionalInit<paths[Path], 'get'>>(
    url: Path,
    ...init: InitArgument<Init>
  ): AsyncIterable<ExactResponse<SuccessBody<Path, 'get', Init>>>;
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

type MethodName = 'GET' | 'PATCH' | 'POST' | 'DELETE';
type CallInit = { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<
  string,
  unknown
>;

/** Creates the client: int64 exact both ways, error responses thrown as {@link ApiError}. */
export function createPetStoreClient(options: PetStoreClientOptions): PetStoreClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const client = createClient<paths>({
    baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.apiKey ? { headers: { authorization: `Bearer ${options.apiKey}` } } : {}),
    bodySerializer: stringifyExactJson,
  });
  // The body is read as text and parsed here: openapi-fetch's own parsing would round int64 to doubles.
  const request = client.request as (
    method: string,
    url: string,
    init: unknown,
  ) => Promise<FetchResponse<never, never, never>>;
  const send = async (method: MethodName, url: string, init?: CallInit): Promise<ExactResponse<unknown>> => {
    const { data, error, response } = await request(method, url, { ...init, parseAs: 'text' });
    if (error !== undefined || !response.ok) throw new ApiError(response, error);
    return { data: data ? parseExactJson(data as string) : undefined, response };
  };
  async function* pages(url: string, init: CallInit = {}): AsyncGenerator<ExactResponse<unknown>> {
    let pageInit = init;
    for (;;) {
      const page = await send('GET', url, pageInit);
      yield page;
      const target = nextLink(page.response.headers.get('link'));
      if (target === undefined) return;
      // The target repeats the query (limit, status, type) with the next cursor: it replaces the query.
      const query = Object.fromEntries(new URL(target, baseUrl).searchParams);
      const short = Array.isArray(page.data) && page.data.length < Number(query.limit);
      if (feedPaths.has(url) && short) return;
      pageInit = { ...init, params: { ...init.params, query } };
    }
  }
  const body = (method: MethodName) => async (url: string, init?: CallInit) =>
    (await send(method, url, init)).data;
  const withResponse = (method: MethodName) => (url: string, init?: CallInit) => send(method, url, init);
  return {
    GET: body('GET') as ExactMethod<'get'>,
    PATCH: body('PATCH') as ExactMethod<'patch'>,
    POST: body('POST') as ExactMethod<'post'>,
    DELETE: body('DELETE') as ExactMethod<'delete'>,
    withResponse: {
      GET: withResponse('GET') as ExactMethodWithResponse<'get'>,
      PATCH: withResponse('PATCH') as ExactMethodWithResponse<'patch'>,
      POST: withResponse('POST') as ExactMethodWithResponse<'post'>,
      DELETE: withResponse('DELETE') as ExactMethodWithResponse<'delete'>,
    },
    pages: pages as PetStoreClient['pages'],
  };
}
