import fc from 'fast-check';

/** The part of JSON Schema (2020-12, as zod and the OpenAPI document write it) the fuzz suite reads. */
export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  default?: unknown;
}

/** Longest string the generators make for "ordinary" values; the edge values go far past it. */
const ORDINARY_LENGTH = 24;
const INT32_MAX = 2 ** 31 - 1;

const typeOf = (schema: JsonSchema): string | undefined => (Array.isArray(schema.type) ? schema.type[0] : schema.type);
const lowerBound = (schema: JsonSchema): number | undefined =>
  schema.minimum ??
  (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (typeOf(schema) === 'integer' ? 1 : 0.01) : undefined);
const upperBound = (schema: JsonSchema): number | undefined =>
  schema.maximum ??
  (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (typeOf(schema) === 'integer' ? 1 : 0.01) : undefined);

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uuid') return fc.uuid();
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? ORDINARY_LENGTH, ORDINARY_LENGTH));
  if (schema.pattern) {
    const regex = new RegExp(schema.pattern);
    return fc.stringMatching(regex).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

function validNumber(schema: JsonSchema): fc.Arbitrary<number> {
  const min = lowerBound(schema);
  const max = upperBound(schema);
  if (typeOf(schema) === 'integer')
    return fc.integer({ min: Math.max(min ?? -INT32_MAX, -INT32_MAX), max: Math.min(max ?? INT32_MAX, INT32_MAX) });
  if (schema.multipleOf === 0.01)
    return fc.integer({ min: Math.ceil((min ?? 0) * 100), max: Math.floor(Math.min(max ?? 1e7, 1e7) * 100) }).map((cents) => cents / 100);
  return fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true });
}

/**
 * Values the system knows, by property name (plan ids, scope names, an account's e-mail and password):
 * without them a generated body almost never gets past validation to the code behind it.
 */
export type Hints = Record<string, unknown[]>;
let hints: Hints = {};
export const useHints = (known: Hints): void => {
  hints = known;
};

/** Values the schema accepts (approximately: a trimmed-empty string, for one, may still be refused). */
export function validValue(schema: JsonSchema, name?: string): fc.Arbitrary<unknown> {
  const known = name !== undefined ? hints[name] : undefined;
  if (known && known.length > 0)
    return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: validValue(schema) });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => validValue(alternative)));
  switch (typeOf(schema)) {
    case 'string':
      return validString(schema);
    case 'integer':
    case 'number':
      return validNumber(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ?? {};
      const minLength = schema.minItems ?? 0;
      return fc.uniqueArray(validValue(items), {
        minLength,
        maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)),
        selector: (v) => JSON.stringify(v),
      });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) model[key] = validValue(property, key);
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Strings nobody here would type: empty, blank, NUL and control characters, unicode of every kind, huge. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t\n',
  'a\u0000b',
  '\u0000',
  '\u0001\u001f\u007f',
  'line\r\nbreak',
  '\u202eRTL',
  'e\u0301\u0301\u0301',
  '🎧🔊',
  '\ud800',
  '\uffff',
  "'; DROP TABLE x; --",
  '%00',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '$' + '{jndi:x}',
  '{{7*7}}',
  'x'.repeat(10_000),
  '€'.repeat(70_000),
];

const WRONG_TYPES: unknown[] = [null, true, 0, -1, 'text', [], {}, [[[]]], { nested: { deeper: [null] } }];

/** Numbers at and past every bound of the schema, and past every column range. */
function edgeNumbers(schema: JsonSchema): number[] {
  const edges = [
    0,
    -1,
    1,
    0.5,
    -0,
    1.005,
    INT32_MAX,
    INT32_MAX + 1,
    -(INT32_MAX + 2),
    2 ** 53,
    2 ** 53 + 2,
    1e300,
    -1e300,
    Number.MIN_VALUE,
  ];
  for (const bound of [lowerBound(schema), upperBound(schema)])
    if (bound !== undefined) edges.push(bound, bound - 1, bound + 1, bound - 0.01, bound + 0.01);
  return edges;
}

function edgeStrings(schema: JsonSchema): string[] {
  const edges = [...HOSTILE_STRINGS];
  if (schema.maxLength !== undefined)
    edges.push('x'.repeat(schema.maxLength), 'x'.repeat(schema.maxLength + 1), 'é'.repeat(schema.maxLength + 1));
  if (schema.minLength) edges.push('x'.repeat(schema.minLength - 1));
  return edges;
}

/** Values at and past the schema's edges, of the wrong type, or hostile: most of them should be refused. */
export function edgeValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const type = typeOf(schema);
  const own: unknown[] =
    type === 'integer' || type === 'number' ? edgeNumbers(schema) : type === 'string' || schema.enum ? edgeStrings(schema) : [];
  return fc.oneof(
    { weight: 3, arbitrary: own.length > 0 ? fc.constantFrom(...own) : fc.constantFrom(...WRONG_TYPES) },
    { weight: 1, arbitrary: fc.constantFrom(...WRONG_TYPES) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
  );
}

const omit = (value: Record<string, unknown>, key: string): Record<string, unknown> => {
  const { [key]: _dropped, ...rest } = value;
  return rest;
};

/**
 * A value of the schema's shape with one thing wrong somewhere: a required field missing, an
 * unknown field, or one field (at any depth) replaced by an edge or wrong-typed value.
 */
export function mutatedValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map(mutatedValue));
  const type = typeOf(schema);
  if (type === 'object' && schema.properties) {
    const base = validValue(schema) as fc.Arbitrary<Record<string, unknown>>;
    const names = Object.keys(schema.properties);
    const required = schema.required ?? [];
    const mutations: fc.Arbitrary<unknown>[] = [
      fc
        .tuple(
          base,
          fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'role', 'id', 'userId')),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([value, key, extra]) => {
          const copy = { ...value };
          Object.defineProperty(copy, key, { value: extra, enumerable: true, writable: true, configurable: true });
          return copy;
        }),
      fc.constantFrom(...WRONG_TYPES),
    ];
    // An object with no members (a body that takes no fields) has no member to mutate.
    if (names.length > 0)
      mutations.push(
        fc
          .tuple(base, fc.constantFrom(...names))
          .chain(([value, key]) => mutatedValue(schema.properties![key]!).map((bad) => ({ ...value, [key]: bad }))),
      );
    if (required.length > 0) mutations.push(fc.tuple(base, fc.constantFrom(...required)).map(([value, key]) => omit(value, key)));
    return fc.oneof(...mutations);
  }
  if (type === 'array') {
    const items = schema.items ?? {};
    return fc.oneof(
      fc.tuple(validValue(schema) as fc.Arbitrary<unknown[]>, mutatedValue(items)).map(([list, bad]) => [...list, bad]),
      fc.constant([]),
      fc.constantFrom(...WRONG_TYPES),
    );
  }
  return edgeValue(schema);
}
