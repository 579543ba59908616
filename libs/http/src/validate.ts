import type { z } from 'zod';
import { badRequest, type ErrorDetail } from '@acs/errors';
import { assertStorableText } from './storable-text.js';

/**
 * Parses input with a zod schema; failures become 400 with one `details` entry per problem. Text
 * that cannot be stored (NUL, lone surrogates) is refused first, whatever the schema says.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: 'body' | 'query' | 'path'): z.infer<S> {
  assertStorableText(input, what);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({
    path: [what, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw badRequest(`The request ${what} is invalid`, details);
}
