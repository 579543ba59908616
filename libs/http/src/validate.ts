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
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({
    path: [what, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw validationFailed(`The request ${what} is invalid`, details);
}

/**
 * The one way an operation reads its query: the escapes must spell UTF-8 (utf8-input.ts), then
 * parseInput as for any input. Operations that ignore their query never call it.
 */
export function parseQuery<S extends z.ZodType>(schema: S, ctx: QuerySource): z.infer<S> {
  return parseInput(schema, utf8Query(ctx), 'query');
}
