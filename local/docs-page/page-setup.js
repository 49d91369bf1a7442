/**
 * @module The API reference page's own script (docs/api-reference.md): starts Swagger UI on the description
 * embedded in the page, with the page's own server first, every int64 of responses, examples and schemas shown
 * (and examples sent) digit for digit, the description's sections folded below the title, and, opened as a
 * file, read-only with a notice saying so.
 */

/** Reads the JSON of the `<script type="application/json">` element with this id. */
function embedded(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

/** Prefix (a private-use character) of the string that stands for an integer beyond 2^53 in an example. */
const int64Mark = '\uE000int64:';

/** A marked string, or a text holding marked strings in JSON (`"\uE000int64:123"`), with the digits written back. */
function unmarked(text) {
  return text.replace(new RegExp(`"${int64Mark}(-?[0-9]+)"`, 'g'), '$1').replaceAll(int64Mark, '');
}

/**
 * Parses the description for Swagger UI, which turns every number into a double on its way in (see
 * docs/api-reference.md "int64 on the page"). Each integer beyond 2^53 becomes:
 * - in a parameter's `example` or `examples` (the `int64Maximum` petId): its digits as a string, which
 *   "Try it out" pre-fills and sends as they are;
 * - in another `example` or `examples` entry (request and response bodies): a marked string of its digits,
 *   written back as the number by {@link ExactExamples} in code blocks and by {@link unmarked} in the body sent;
 * - elsewhere (a schema's `minimum`, `maximum`, `examples`): a number, so that Swagger UI's checks still
 *   compare it, and an entry of `exactIntegers` that {@link ExactSchemaValues} uses to show it digit for digit.
 * @returns {{ description: object, exactIntegers: Map<string, string> }} the description, and each such number's
 *   rendering by JavaScript (`9223372036854776000`) mapped to its digits, renderings shared by two values left out.
 */
function parseDescription(text) {
  const marked = JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && /^-?[0-9]+$/.test(context.source)
      ? int64Mark + context.source
      : value,
  );
  const exactIntegers = new Map();
  const ambiguous = new Set();
  const restore = (node, inParameters, inExample) => {
    if (typeof node === 'string' && node.startsWith(int64Mark)) {
      const digits = node.slice(int64Mark.length);
      if (inExample) return inParameters ? digits : node;
      const rendering = String(Number(digits));
      if (exactIntegers.has(rendering) && exactIntegers.get(rendering) !== digits) ambiguous.add(rendering);
      exactIntegers.set(rendering, digits);
      return Number(digits);
    }
    if (Array.isArray(node)) return node.map((member) => restore(member, inParameters, inExample));
    if (node === null || typeof node !== 'object') return node;
    const entries = Object.entries(node).map(([key, member]) => [
      key,
      restore(
        member,
        inParameters || key === 'parameters',
        // A schema's `examples` is an array of values; an example map (`examples` of a parameter or a media
        // type) is an object of Example Objects.
        inExample || key === 'example' || (key === 'examples' && !Array.isArray(member)),
      ),
    ]);
    return Object.fromEntries(entries);
  };
  const description = restore(marked, false, false);
  for (const rendering of ambiguous) exactIntegers.delete(rendering);
  return { description, exactIntegers };
}

/**
 * A Swagger UI plugin: examples of bodies show each marked integer as its digits, in their code blocks and in
 * the request body that "Try it out" pre-fills (the body sent is unmarked by the page's request interceptor).
 */
function ExactExamples() {
  const unmarkedProp = (value) => (typeof value === 'string' ? unmarked(value) : value);
  return {
    wrapComponents: {
      HighlightCode: (Original, system) => (props) =>
        system.React.createElement(Original, { ...props, children: unmarkedProp(props.children) }),
      RequestBodyEditor: (Original, system) => (props) =>
        system.React.createElement(Original, {
          ...props,
          value: unmarkedProp(props.value),
          defaultValue: unmarkedProp(props.defaultValue),
        }),
    },
  };
}

/**
 * A Swagger UI plugin: the Schema view (JSON Schema 2020-12) shows a schema's integers beyond 2^53 (the int64
 * bounds, `examples`) digit for digit, from `exactIntegers` (see {@link parseDescription}).
 * @param {Map<string, string>} exactIntegers each number's rendering by JavaScript mapped to its digits
 */
function exactSchemaValues(exactIntegers) {
  const exactText = (text) =>
    text.replace(/-?[0-9]{16,}/g, (rendering) => exactIntegers.get(rendering) ?? rendering);
  const exactValue = (value) =>
    typeof value === 'number' && exactIntegers.has(String(value))
      ? BigInt(exactIntegers.get(String(value)))
      : value;
  return () => ({
    wrapComponents: {
      // `[-9223372036854775808, 9223372036854775807] int64`, as Swagger UI's stringifyConstraints wrote it.
      JSONSchema202012KeywordConstraint: (Original, system) => (props) =>
        system.React.createElement(Original, {
          ...props,
          constraint: { ...props.constraint, value: exactText(String(props.constraint?.value ?? '')) },
        }),
      // The keyword's viewer writes a bigint with String(), so the digits as they are.
      JSONSchema202012KeywordExamples: (Original, system) => (props) =>
        system.React.createElement(Original, {
          ...props,
          schema: Array.isArray(props.schema?.examples)
            ? { ...props.schema, examples: props.schema.examples.map(exactValue) }
            : props.schema,
        }),
    },
  });
}

/** The description's text up to its first `## ` section, and the sections. */
function splitOverview(markdown) {
  const start = markdown.search(/^## /m);
  return start < 0
    ? { intro: markdown, sections: '' }
    : { intro: markdown.slice(0, start), sections: markdown.slice(start) };
}

/**
 * A Swagger UI plugin: under the title and the description's introduction, the description's sections
 * (addresses, authentication, errors, limits: two screens of text) fold into one "About this API" line, so the
 * servers and **Authorize** come into the first screen; opened as a file (`readOnlyNotice`), a notice says the
 * page cannot send requests, and where to try them.
 * @param {string} sections the `## ` sections of `info.description`
 * @param {string | undefined} readOnlyNotice the notice, or undefined when the page sends requests
 */
function apiOverview(sections, readOnlyNotice) {
  const headings = [...sections.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
  return () => ({
    wrapComponents: {
      InfoContainer: (Original, system) => (props) => {
        const { createElement } = system.React;
        const Markdown = system.getComponent('Markdown', true);
        const overview =
          sections &&
          createElement(
            'details',
            { className: 'api-overview' },
            createElement('summary', null, `About this API: ${headings.join(', ')}`),
            createElement(Markdown, { source: sections }),
          );
        const notice =
          readOnlyNotice &&
          createElement('p', { className: 'read-only-notice', role: 'note' }, readOnlyNotice);
        return createElement('div', null, createElement(Original, props), notice, overview);
      },
      // The description's own address: the page's internal base for `$ref`s when opened as a file (see below).
      InfoUrl: () => () => null,
      ...(readOnlyNotice ? { AuthorizeBtnContainer: () => () => null } : {}),
    },
  });
}

/**
 * The servers to offer: when the page is served over HTTP by the API itself, the API at the page's own origin
 * comes first (Swagger UI preselects the first one, and the page's CSP lets it reach only its own origin),
 * followed by the described servers that differ from it. Opened as a file, the described servers alone.
 */
function servers(described, apiBasePath) {
  if (!apiBasePath || !/^https?:$/.test(location.protocol)) return described;
  const url = new URL(apiBasePath, location.origin).href;
  const here = { url, description: 'This server: the API that serves this page.' };
  return [here, ...described.filter((server) => server.url !== url)];
}

/**
 * The JSON text pretty-printed with every number as written (`JSON.parse` source text access and
 * `JSON.rawJSON`, Chrome 114+), or undefined when it is not JSON or the browser lacks them.
 */
function exactJson(text) {
  try {
    const value = JSON.parse(text, (_key, member, context) =>
      typeof member === 'number' ? JSON.rawJSON(context.source) : member,
    );
    return JSON.stringify(value, null, 2);
  } catch {
    return undefined;
  }
}

/**
 * A Swagger UI plugin: a JSON response body is shown from its text, digit for digit. Swagger UI's own
 * display parses it into doubles, so 9223372036854775807 would show as 9223372036854776000
 * (swagger-api/swagger-ui#2030).
 */
function ExactJsonResponses() {
  return {
    wrapComponents: {
      responseBody: (Original, system) => (props) => {
        const { createElement } = system.React;
        const isJson = typeof props.content === 'string' && /json/i.test(props.contentType ?? '');
        const text = isJson ? exactJson(props.content) : undefined;
        if (text === undefined) return createElement(Original, props);
        const HighlightCode = props.getComponent('HighlightCode', true);
        const code = { language: 'json', downloadable: true, fileName: 'response.json', canCopy: true };
        return createElement(
          'div',
          null,
          createElement('h5', null, 'Response body'),
          createElement(HighlightCode, code, text),
        );
      },
    },
  };
}

/**
 * `described` without the `example` of its `Idempotency-Key` parameter, so that "Try it out" leaves the field
 * empty: a pre-filled key would be sent again by every Execute, a replay or a 422 instead of a new request
 * (docs/api-reference.md "Trying a request from the page").
 */
function withEmptyIdempotencyKey(described) {
  const { example: _prefilled, ...idempotencyKey } = described.components.parameters.IdempotencyKey;
  const parameters = { ...described.components.parameters, IdempotencyKey: idempotencyKey };
  return { ...described, components: { ...described.components, parameters } };
}

const parsed = parseDescription(document.getElementById('openapi').textContent);
const description = withEmptyIdempotencyKey(parsed.description);
const { exactIntegers } = parsed;
const { apiBasePath } = embedded('page-settings');
/** Served over HTTP by the API itself; otherwise a file that sends no request (docs/api-reference.md). */
const sendsRequests = Boolean(apiBasePath) && /^https?:$/.test(location.protocol);
const { intro, sections } = splitOverview(description.info?.description ?? '');
const readOnlyNotice = sendsRequests
  ? undefined
  : 'Read-only copy: this page cannot send requests ("Try it out" is off). To try the operations, run npm start ' +
    'and open the page it serves at http://127.0.0.1:3000/docs.';
const ui = SwaggerUIBundle({
  spec: {
    ...description,
    info: { ...description.info, description: intro },
    servers: servers(description.servers ?? [], apiBasePath),
  },
  dom_id: '#api-reference',
  deepLinking: true,
  displayOperationId: true,
  validatorUrl: null,
  ...(sendsRequests ? {} : { supportedSubmitMethods: [] }),
  requestInterceptor: (request) =>
    typeof request.body === 'string' ? { ...request, body: unmarked(request.body) } : request,
  plugins: [
    ExactExamples,
    exactSchemaValues(exactIntegers),
    ExactJsonResponses,
    apiOverview(sections, readOnlyNotice),
  ],
});
// Swagger UI resolves `$ref`s against the description's address, the page's own by default; a `file:` address
// fails every `$ref` ("Could not resolve reference"), so a file page names a never-fetched https one instead
// (`.invalid`, RFC 6761): every `$ref` of openapi.yaml is within the document.
if (!/^https?:$/.test(location.protocol))
  ui.specActions.updateUrl('https://api-reference.invalid/openapi.json');
