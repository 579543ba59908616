import { validationFailed, type ErrorDetail } from '@acs/errors';

/**
 * The one rule for text a client sends (bodies, queries, path parameters): PostgreSQL refuses NUL
 * in text (22021) and UTF-8 has no encoding for a lone surrogate (Node silently writes U+FFFD
 * instead, so the stored value would differ from the one sent). Either is refused up front with
 * 400 naming the field, before any schema or query sees it, whatever the route.
 */
export const UNSTORABLE_TEXT_MESSAGE = 'Text must not contain NUL characters or unpaired UTF-16 surrogates';

/** NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point of this rule
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Deep enough for every body we accept (catalog specs are 3 levels down); deeper is refused by the schemas anyway. */
const MAX_DEPTH = 32;

const isStorable = (text: string): boolean => !UNSTORABLE.test(text);

function pathOf(prefix: string, key: string | number): string {
  return typeof key === 'number' ? `${prefix}[${key}]` : `${prefix}.${key}`;
}

/** Every string (and object key) in `value` that cannot be stored as text, by path from `root`. */
export function findUnstorableText(value: unknown, root: string, limit = 100): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  const visit = (current: unknown, path: string, depth: number): void => {
    if (found.length >= limit) return;
    if (typeof current === 'string') {
      if (!isStorable(current)) found.push({ path, message: UNSTORABLE_TEXT_MESSAGE });
      return;
    }
    if (typeof current !== 'object' || current === null || depth >= MAX_DEPTH) return;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length && found.length < limit; i++) visit(current[i], pathOf(path, i), depth + 1);
      return;
    }
    for (const key of Object.keys(current)) {
      if (!isStorable(key)) {
        found.push({ path: pathOf(path, JSON.stringify(key).slice(1, -1)), message: UNSTORABLE_TEXT_MESSAGE });
        continue;
      }
      visit((current as Record<string, unknown>)[key], pathOf(path, key), depth + 1);
    }
  };
  visit(value, root, 0);
  return found;
}

/** Throws 400 in the error shape, with one detail per offending field, if any text in `value` cannot be stored. */
export function assertStorableText(value: unknown, root: string): void {
  const details = findUnstorableText(value, root);
  if (details.length > 0) throw validationFailed(`The request ${root} contains text that cannot be stored`, details);
}
