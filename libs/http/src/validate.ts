import type { z } from 'zod';
import { validationFailed, type ErrorDetail } from '@acs/errors';
import { inputMessage, problemsOf } from './input-messages.js';
import { assertStorableText } from './storable-text.js';
import { utf8Query, type QuerySource } from './utf8-input.js';

/**
 * Parses input with a zod schema; failures become 400 with one `details` entry per problem, in words that say
 * what to send (input-messages.ts). Text that cannot be stored (NUL, lone surrogates) is refused first,
 * whatever the schema says.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: 'body' | 'query' | 'path'): z.infer<S> {
  assertStorableText(input, what);
  const result = schema.safeParse(input, { error: inputMessage });
  if (result.success) return result.data;
  const names = topLevelNames(schema);
  throw validationFailed(
    `The request ${what} is invalid`,
    result.error.issues.flatMap((issue) => detailsOf(issue, what, names)),
  );
}

/** The names an object schema takes at its top level; none for any other schema. */
function topLevelNames(schema: z.ZodType): readonly string[] {
  const shape = (schema as { shape?: unknown }).shape;
  return typeof shape === 'object' && shape !== null ? Object.keys(shape) : [];
}

const UNKNOWN: Readonly<Record<'body' | 'query' | 'path', string>> = {
  body: 'unknown field',
  query: 'unknown parameter',
  path: 'unknown parameter',
};

/** One detail per problem (input-messages.ts), its path under `what`. */
const detailsOf = (issue: z.core.$ZodIssue, what: 'body' | 'query' | 'path', names: readonly string[]): ErrorDetail[] =>
  problemsOf(issue, UNKNOWN[what], names).map(({ path, message }) => ({ path: [what, ...path.map(String)].join('.'), message }));

/**
 * The one way an operation reads its query: the escapes must spell UTF-8 (utf8-input.ts), then
 * parseInput as for any input. Operations that ignore their query never call it.
 */
export function parseQuery<S extends z.ZodType>(schema: S, ctx: QuerySource): z.infer<S> {
  return parseInput(schema, utf8Query(ctx), 'query');
}
