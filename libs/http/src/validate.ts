import type { z } from 'zod';
import { validationFailed, type ErrorDetail } from '@acs/errors';
import { inputMessage } from './input-messages.js';
import { assertStorableText } from './storable-text.js';
import { utf8Query, type QuerySource } from './utf8-input.js';

/**
 * Parses input with a zod schema; failures become 400 with one `details` entry per problem, in words that say
 * what to send (input-messages.ts). Text
 * that cannot be stored (NUL, lone surrogates) is refused first, whatever the schema says.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: 'body' | 'query' | 'path'): z.infer<S> {
  assertStorableText(input, what);
  const result = schema.safeParse(input, { error: inputMessage });
  if (result.success) return result.data;
  throw validationFailed(
    `The request ${what} is invalid`,
    result.error.issues.flatMap((issue) => detailsOf(issue, what)),
  );
}

const UNKNOWN: Readonly<Record<'body' | 'query' | 'path', string>> = {
  body: 'unknown field',
  query: 'unknown parameter',
  path: 'unknown parameter',
};

/** One detail per problem; a name the schema does not have is reported at the name itself, where the typo is. */
function detailsOf(issue: z.core.$ZodIssue, what: 'body' | 'query' | 'path'): ErrorDetail[] {
  const at = [what, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...at, key].join('.'), message: UNKNOWN[what] }));
  return [{ path: at.join('.'), message: issue.message }];
}

/**
 * The one way an operation reads its query: the escapes must spell UTF-8 (utf8-input.ts), then
 * parseInput as for any input. Operations that ignore their query never call it.
 */
export function parseQuery<S extends z.ZodType>(schema: S, ctx: QuerySource): z.infer<S> {
  return parseInput(schema, utf8Query(ctx), 'query');
}
