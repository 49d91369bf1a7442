/**
 * @module The API reference page's own script (docs/api-reference.md): starts Swagger UI on the description
 * embedded in the page, with the page's own server first and int64 values of responses and response examples
 * shown digit for digit.
 */

/** Reads the JSON of the `<script type="application/json">` element with this id. */
function embedded(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

/** Prefix (a private-use character) of the string that stands for an integer beyond 2^53 in an example. */
const int64Mark = '\uE000int64:';

/**
 * Parses the description with every integer beyond 2^53 of a response example (the int64 maximum in
 * listInventory's) as a marked string of its digits, which Swagger UI's own spec parser and `$ref` resolver
 * pass through intact and {@link ExactExamples} writes back as the number; elsewhere as a number.
 */
function parseDescription(text) {
  const marked = JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && /^-?[0-9]+$/.test(context.source)
      ? int64Mark + context.source
      : value,
  );
  const restore = (node, inResponses, inExample) => {
    if (typeof node === 'string' && node.startsWith(int64Mark)) {
      return inResponses && inExample ? node : Number(node.slice(int64Mark.length));
    }
    if (Array.isArray(node)) return node.map((member) => restore(member, inResponses, inExample));
    if (node === null || typeof node !== 'object') return node;
    const entries = Object.entries(node).map(([key, member]) => [
      key,
      restore(
        member,
        inResponses || key === 'responses',
        inExample || key === 'example' || key === 'examples',
      ),
    ]);
    return Object.fromEntries(entries);
  };
  return restore(marked, false, false);
}

/** A Swagger UI plugin: code blocks (response examples) show each marked integer as its digits. */
function ExactExamples() {
  const marks = new RegExp(`"${int64Mark}(-?[0-9]+)"`, 'g');
  return {
    wrapComponents: {
      HighlightCode: (Original, system) => (props) =>
        system.React.createElement(Original, {
          ...props,
          children: typeof props.children === 'string' ? props.children.replace(marks, '$1') : props.children,
        }),
    },
  };
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

const description = parseDescription(document.getElementById('openapi').textContent);
const { apiBasePath } = embedded('page-settings');
SwaggerUIBundle({
  spec: { ...description, servers: servers(description.servers ?? [], apiBasePath) },
  dom_id: '#api-reference',
  deepLinking: true,
  displayOperationId: true,
  validatorUrl: null,
  plugins: [ExactExamples, ExactJsonResponses],
});
