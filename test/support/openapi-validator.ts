/** Validates an HTTP response against `openapi.yaml`, int64 values exactly (docs/contract.md "Identifiers"). */
import { readFileSync } from 'node:fs';
import Ajv2020Module, {
  type ErrorObject,
  type FuncKeywordDefinition,
  type ValidateFunction,
} from 'ajv/dist/2020.js';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { parse } from 'yaml';

// ajv and ajv-formats are CommonJS modules whose `module.exports` is also exported as `default`.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** A response as the client received it. */
export interface ResponseToValidate {
  /** The request's method, any case (`GET`, `patch`). */
  method: string;
  /** The request path under the server URL, as the client sent it (`/inventory/123`); a query is ignored. */
  path: string;
  /** The HTTP status code of the response. */
  status: number;
  /** The response headers: a fetch `Headers` object or a plain object (names in any case). */
  headers: Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>;
  /** The raw body text (empty or undefined when there is none). */
  body?: string | undefined;
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const componentsId = 'urn:openapi:components';

type Json = null | boolean | number | bigint | string | Json[] | { [member: string]: Json };
type JsonObject = { [member: string]: Json };

interface DeclaredResponse {
  /** Media type (lowercase) to compiled body validator; empty when the response declares no content. */
  content: Map<string, ValidateFunction>;
  /** Lowercase names of the headers the response declares `required: true`, each with its value pattern. */
  requiredHeaders: Map<string, RegExp | undefined>;
}

interface DeclaredOperation {
  operationId: string;
  /** Status keys as written: `200`, `4XX`, `default`. */
  responses: Map<string, DeclaredResponse>;
}

interface PathTemplate {
  template: string;
  segments: string[];
  operations: Map<string, DeclaredOperation>;
}

/**
 * Parses JSON text like `JSON.parse`, except that an integer literal a `number` cannot hold exactly (beyond
 * ±2^53) becomes a `bigint` with the literal's exact value, read from the source text (TC39 "JSON.parse
 * source text access", Node 21+). Other numbers stay numbers.
 * @throws SyntaxError when `text` is not JSON.
 */
export function parseJsonExact(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) => {
    if (typeof value !== 'number' || Number.isSafeInteger(value)) return value;
    const source = context?.source;
    return source !== undefined && /^-?(0|[1-9][0-9]*)$/.test(source) ? BigInt(source) : value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asBigInt(bound: Json | undefined, fallback: bigint): bigint {
  if (bound === undefined) return fallback;
  if (typeof bound === 'bigint') return bound;
  if (typeof bound === 'number' && Number.isSafeInteger(bound)) return BigInt(bound);
  throw new Error(`openapi.yaml: int64 bound ${String(bound)} is not an integer`);
}

/** Bounds of an `int64Exact` keyword, as decimal strings (Ajv's schemas must stay JSON-serialisable). */
interface Int64Bounds {
  minimum: string;
  maximum: string;
}

/**
 * Rewrites an OpenAPI schema for Ajv: `$ref`s to `#/components/schemas/X` point into the components schema
 * registered under {@link componentsId}; `type: integer, format: int64` becomes the exact `int64Exact`
 * keyword; remaining bigints (bounds or examples that were never int64) become numbers; OpenAPI-only
 * annotations (`example`, `x-*`) are dropped.
 */
function toAjvSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toAjvSchema);
  if (typeof node === 'bigint') return Number(node);
  if (!isObject(node)) return node;
  if (node.format === 'int64') {
    if (node.type !== 'integer')
      throw new Error('openapi.yaml: format int64 is supported on type integer only');
    const { type: _type, format: _format, minimum, maximum, ...rest } = node;
    if ('exclusiveMinimum' in rest || 'exclusiveMaximum' in rest || 'multipleOf' in rest) {
      throw new Error('openapi.yaml: int64 supports minimum and maximum only');
    }
    const bounds: Int64Bounds = {
      minimum: asBigInt(minimum, int64Min).toString(),
      maximum: asBigInt(maximum, int64Max).toString(),
    };
    return { ...(toAjvSchema(rest) as JsonObject), int64Exact: bounds as unknown as Json };
  }
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      result[key] = `${componentsId}#/$defs/${value.slice('#/components/schemas/'.length)}`;
    } else if (key === '$ref' && typeof value === 'string' && value.startsWith('#')) {
      throw new Error(`openapi.yaml: unsupported schema $ref ${value}`);
    } else {
      result[key] = toAjvSchema(value);
    }
  }
  return result;
}

/** The `int64Exact` keyword's check: a safe-integer number or a bigint within the bounds, compared exactly. */
const validateInt64: SchemaValidateFunction = (bounds: Int64Bounds, data: unknown): boolean => {
  const fail = (message: string) => {
    validateInt64.errors = [{ keyword: 'int64Exact', message, params: { ...bounds } }];
    return false;
  };
  let value: bigint;
  if (typeof data === 'bigint') value = data;
  else if (typeof data === 'number' && Number.isSafeInteger(data)) value = BigInt(data);
  else if (typeof data === 'number' && Number.isInteger(data)) {
    return fail('must be an int64 parsed exactly (an integer beyond ±2^53 read as a rounded number)');
  } else return fail('must be integer');
  if (value < BigInt(bounds.minimum) || value > BigInt(bounds.maximum)) {
    return fail(`must be an integer from ${bounds.minimum} to ${bounds.maximum}`);
  }
  return true;
};

/** The `int64Exact` keyword (see {@link toAjvSchema}). */
const int64Exact: FuncKeywordDefinition = {
  keyword: 'int64Exact',
  schemaType: 'object',
  errors: true,
  validate: validateInt64,
};

/** Follows an OpenAPI `$ref` (`#/components/...`) within the document. */
function resolve(document: JsonObject, node: Json | undefined): Json | undefined {
  let current = node;
  for (let depth = 0; isObject(current) && typeof current.$ref === 'string'; depth++) {
    if (depth > 20) throw new Error('openapi.yaml: $ref cycle');
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`openapi.yaml: only local $refs are supported, not ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Json | undefined>((parent, key) => (isObject(parent) ? parent[key] : undefined), document);
    if (current === undefined) throw new Error(`openapi.yaml: unresolved $ref ${ref}`);
  }
  return current;
}

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** What the description declares, compiled: every operation's responses, and each webhook's request body. */
interface Compiled {
  templates: PathTemplate[];
  /** By webhook name (`inventory.changed`): the JSON schema of its POST's body. */
  webhooks: Map<string, ValidateFunction>;
}

/** Reads and compiles the description once: every declared response body of every operation, every webhook body. */
function compile(specText: string): Compiled {
  const document = parse(specText, { intAsBigInt: true }) as JsonObject;
  // strictTypes is off: the description's `allOf` branches that pin `code` and `status` of an Error carry
  // `properties` without repeating `type: object`, which JSON Schema allows.
  const ajv = new Ajv2020({ allErrors: true, strictTypes: false });
  addFormats(ajv);
  ajv.addVocabulary(['xml', 'externalDocs', 'discriminator']);
  ajv.addKeyword(int64Exact);
  const components = isObject(document.components) ? document.components : {};
  ajv.addSchema({ $id: componentsId, $defs: toAjvSchema(components.schemas ?? {}) } as object);

  const templates: PathTemplate[] = [];
  for (const [template, rawPathItem] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    const pathItem = resolve(document, rawPathItem);
    if (!isObject(pathItem)) continue;
    const operations = new Map<string, DeclaredOperation>();
    for (const method of httpMethods) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const responses = new Map<string, DeclaredResponse>();
      for (const [status, rawResponse] of Object.entries(
        isObject(operation.responses) ? operation.responses : {},
      )) {
        const response = resolve(document, rawResponse);
        const content = new Map<string, ValidateFunction>();
        const declared = isObject(response) && isObject(response.content) ? response.content : {};
        for (const [mediaType, media] of Object.entries(declared)) {
          const schema = isObject(media) && media.schema !== undefined ? media.schema : {};
          content.set(mediaType.toLowerCase(), ajv.compile(toAjvSchema(schema) as object));
        }
        const requiredHeaders = new Map<string, RegExp | undefined>();
        const headers = isObject(response) && isObject(response.headers) ? response.headers : {};
        for (const [name, rawHeader] of Object.entries(headers)) {
          const header = resolve(document, rawHeader);
          if (!isObject(header) || header.required !== true) continue;
          const schema = resolve(document, header.schema);
          const pattern = isObject(schema) && typeof schema.pattern === 'string' ? schema.pattern : undefined;
          requiredHeaders.set(name.toLowerCase(), pattern === undefined ? undefined : new RegExp(pattern));
        }
        responses.set(status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase(), {
          content,
          requiredHeaders,
        });
      }
      operations.set(method.toUpperCase(), { operationId: String(operation.operationId), responses });
    }
    templates.push({ template, segments: template.split('/'), operations });
  }
  const webhooks = new Map<string, ValidateFunction>();
  for (const [name, item] of Object.entries(isObject(document.webhooks) ? document.webhooks : {})) {
    const post = isObject(item) ? item.post : undefined;
    const body = isObject(post) ? resolve(document, post.requestBody) : undefined;
    const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
    if (isObject(media) && media.schema !== undefined) {
      webhooks.set(name, ajv.compile(toAjvSchema(media.schema) as object));
    }
  }
  return { templates, webhooks };
}

let compiled: Compiled | undefined;

function declared(): Compiled {
  compiled ??= compile(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
  return compiled;
}

function declaredTemplates(): PathTemplate[] {
  return declared().templates;
}

/**
 * Checks a webhook request body against the `webhooks` section of openapi.yaml (`name` as `inventory.changed`),
 * int64 values exactly: its problems, empty when valid.
 */
export function validateWebhookBody(name: string, body: string): string[] {
  const validate = declared().webhooks.get(name);
  if (!validate) return [`openapi.yaml declares no webhook ${name}`];
  let value: unknown;
  try {
    value = parseJsonExact(body);
  } catch {
    return [`webhook ${name}: the body is not valid JSON`];
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `webhook ${name}: ${describeError(error)}`);
}

/**
 * The template matching `path`: literal segments equal, `{name}` any segment; most literals win. An empty
 * segment matches a parameter too, so that `PATCH /inventory/` (an empty petId, 400 by docs/contract.md) is
 * checked against `/inventory/{petId}`.
 */
function matchPath(templates: PathTemplate[], path: string): PathTemplate | undefined {
  const segments = (path.split(/[?#]/)[0] ?? '').split('/');
  let best: { template: PathTemplate; literals: number } | undefined;
  for (const template of templates) {
    if (template.segments.length !== segments.length) continue;
    let literals = 0;
    const matches = template.segments.every((part, index) => {
      const segment = segments[index] ?? '';
      if (/^\{[^}]+\}$/.test(part)) return true;
      literals++;
      return part === segment;
    });
    if (matches && (!best || literals > best.literals)) best = { template, literals };
  }
  return best?.template;
}

/** The declared response for `status`: the exact code first, then its `NXX` range, then `default`. */
function declaredResponse(operation: DeclaredOperation, status: number): DeclaredResponse | undefined {
  const { responses } = operation;
  return responses.get(String(status)) ?? responses.get(`${String(status)[0]}XX`) ?? responses.get('default');
}

function headerValue(headers: ResponseToValidate['headers'], name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }
  return undefined;
}

function describeError(error: ErrorObject): string {
  const where = `body${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return `${where}: must not have the member ${JSON.stringify(params.additionalProperty)}`;
  }
  if (error.keyword === 'const') return `${where}: must be ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === 'enum') {
    return `${where}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${where}: ${error.message ?? `fails ${error.keyword}`}`;
}

/**
 * Checks one response against openapi.yaml and returns its problems, each a sentence naming what is wrong
 * (an empty list when the response is valid):
 * - `method path` must match a declared operation (path templates such as `/inventory/{petId}`);
 * - `status` must be declared for that operation (exactly, as `4XX`, or as `default`);
 * - every header the response declares `required: true` must be present (and match its schema's `pattern`);
 * - when the response declares content, `Content-Type` must be one of its media types (parameters such as
 *   `charset` ignored), and the body, parsed with {@link parseJsonExact}, must be valid against its schema;
 *   when it declares none, the body must be empty.
 */
export function validateResponse({ method, path, status, headers, body }: ResponseToValidate): string[] {
  const operationName = `${method.toUpperCase()} ${path}`;
  const template = matchPath(declaredTemplates(), path);
  if (!template) return [`${operationName}: no path of openapi.yaml matches ${path}`];
  const operation = template.operations.get(method.toUpperCase());
  if (!operation) {
    const methods = [...template.operations.keys()].join(', ');
    return [
      `${operationName}: openapi.yaml declares no ${method.toUpperCase()} on ${template.template} (only ${methods})`,
    ];
  }
  const label = `${operation.operationId} (${method.toUpperCase()} ${template.template})`;
  const response = declaredResponse(operation, status);
  if (!response) {
    const declared = [...operation.responses.keys()].join(', ');
    return [`${label}: status ${status} is not declared (declared: ${declared})`];
  }
  const missing: string[] = [];
  for (const [name, pattern] of response.requiredHeaders) {
    const value = headerValue(headers, name);
    if (value === undefined) missing.push(`${label} ${status}: the required header ${name} is missing`);
    else if (pattern && !pattern.test(value)) {
      missing.push(`${label} ${status}: the header ${name} (${value}) does not match ${pattern.source}`);
    }
  }
  if (missing.length > 0) return missing;
  const text = body ?? '';
  if (response.content.size === 0) {
    return text === '' ? [] : [`${label} ${status}: declares no content, but the body is not empty`];
  }
  const contentType = headerValue(headers, 'content-type');
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  const validate = mediaType === undefined ? undefined : response.content.get(mediaType);
  if (!validate) {
    const declared = [...response.content.keys()].join(', ');
    return [`${label} ${status}: Content-Type is ${contentType ?? 'missing'}, expected ${declared}`];
  }
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch {
    return [`${label} ${status}: the body is not valid JSON`];
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${label} ${status}: ${describeError(error)}`);
}

/** Asserts (vitest) that a response a test received is one openapi.yaml declares: see {@link validateResponse}. */
export function expectDeclared(
  method: string,
  path: string,
  response: { status: number; headers: ResponseToValidate['headers']; text: string },
): void {
  const problems = validateResponse({
    method,
    path,
    status: response.status,
    headers: response.headers,
    body: response.text,
  });
  expect(problems, `${method} ${path} ${response.status} ${response.text.slice(0, 200)}`).toEqual([]);
}
