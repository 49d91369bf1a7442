/**
 * @module EventBridge event patterns, the subset the local bus serves: exact values, `prefix`, `anything-but`
 * and `exists` (README.md "Events and queues"; behaviour.md V3).
 * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns.html
 * @see https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html
 */

/** A compiled pattern: true when `event` (an event envelope, as JSON) matches. */
export type EventMatcher = (event: unknown) => boolean;

/** One allowed value of a pattern's array: an exact value or an operator. */
type Condition =
  | { kind: 'exact'; value: string | number | boolean | null }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'anything-but'; values: (string | number)[]; prefix?: string }
  | { kind: 'exists'; exists: boolean };

/** A pattern's field: its conditions (a leaf) or nested fields. */
type Node = { leaf: Condition[] } | { fields: Map<string, Node> };

/** An unsupported or malformed pattern. */
function refuse(path: string, message: string): Error {
  return new Error(`event pattern: ${path || '(top)'}: ${message}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One element of a leaf array. @throws Error for an operator other than prefix, anything-but, exists */
function condition(value: unknown, path: string): Condition {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
    return { kind: 'exact', value: value as string | number | boolean | null };
  }
  if (!isRecord(value) || Object.keys(value).length !== 1)
    throw refuse(path, `${JSON.stringify(value)} is not a value or one operator`);
  const [[operator, operand]] = Object.entries(value) as [[string, unknown]];
  if (operator === 'prefix' && typeof operand === 'string') return { kind: 'prefix', prefix: operand };
  if (operator === 'exists' && typeof operand === 'boolean') return { kind: 'exists', exists: operand };
  if (operator === 'anything-but') {
    if (typeof operand === 'string' || typeof operand === 'number')
      return { kind: 'anything-but', values: [operand] };
    if (
      Array.isArray(operand) &&
      operand.length > 0 &&
      operand.every((item) => typeof item === 'string' || typeof item === 'number')
    ) {
      return { kind: 'anything-but', values: operand as (string | number)[] };
    }
    if (isRecord(operand) && Object.keys(operand).length === 1 && typeof operand.prefix === 'string') {
      return { kind: 'anything-but', values: [], prefix: operand.prefix };
    }
  }
  throw refuse(
    path,
    `operator ${JSON.stringify(value)} is not served locally (exact, prefix, anything-but, exists)`,
  );
}

function compileNode(pattern: unknown, path: string): Node {
  if (Array.isArray(pattern)) {
    if (pattern.length === 0) throw refuse(path, 'an empty array matches nothing (EventBridge refuses it)');
    const leaf = pattern.map((value) => condition(value, path));
    if (leaf.some((item) => item.kind === 'exists') && leaf.length > 1)
      throw refuse(path, '`exists` must be the only condition of its field');
    return { leaf };
  }
  if (!isRecord(pattern)) throw refuse(path, 'a field must hold an array of values or an object of fields');
  const fields = new Map<string, Node>();
  for (const [name, value] of Object.entries(pattern)) {
    if (name.startsWith('$')) throw refuse(path, `${name} is not served locally`);
    fields.set(name, compileNode(value, path ? `${path}.${name}` : name));
  }
  if (fields.size === 0) throw refuse(path, 'an empty object');
  return { fields };
}

/** Whether one value (never an array) meets one condition (`exists` is handled by the caller). */
function meets(value: unknown, test: Condition): boolean {
  switch (test.kind) {
    case 'exact':
      return value === test.value;
    case 'prefix':
      return typeof value === 'string' && value.startsWith(test.prefix);
    case 'anything-but':
      if (test.prefix !== undefined) return typeof value === 'string' && !value.startsWith(test.prefix);
      return (typeof value === 'string' || typeof value === 'number') && !test.values.includes(value);
    default:
      return false;
  }
}

/** Whether `value` (the event's field, undefined when absent) matches `node`. */
function matches(node: Node, value: unknown, present: boolean): boolean {
  if ('leaf' in node) {
    const [first] = node.leaf;
    if (first?.kind === 'exists') {
      // `exists` applies to leaf values only: an object is not a leaf (eb-create-pattern-operators.html).
      return first.exists === (present && !isRecord(value));
    }
    if (!present) return false;
    // An array in the event matches when any of its elements matches (eb-event-patterns.html "Arrays").
    const values = Array.isArray(value) ? value : [value];
    return values.some((item) => node.leaf.some((test) => meets(item, test)));
  }
  if (!isRecord(value)) {
    // A nested pattern on a missing field can only match through `exists: false` fields.
    return [...node.fields.values()].every((child) => matches(child, undefined, false));
  }
  for (const [name, child] of node.fields) {
    const own = Object.hasOwn(value, name);
    if (!matches(child, own ? value[name] : undefined, own)) return false;
  }
  return true;
}

/**
 * Compiles an `AWS::Events::Rule` `EventPattern` (an object, or its JSON text).
 * @throws Error naming the field when the pattern is malformed or uses an operator not served locally
 *   (numeric, cidr, suffix, wildcard, equals-ignore-case, `$or`)
 */
export function compileEventPattern(pattern: unknown): EventMatcher {
  const parsed = typeof pattern === 'string' ? (JSON.parse(pattern) as unknown) : pattern;
  if (!isRecord(parsed)) throw refuse('', 'a pattern is a JSON object');
  const root = compileNode(parsed, '');
  return (event) => matches(root, event, true);
}
