import type { z } from 'zod';

/*
 * The messages of a 400's `details` for the problems every schema meets: a missing field, a value of the wrong
 * type, a length or number out of range, a value not in a list. zod's own ("Invalid input: expected string,
 * received undefined", "Too big: expected string to have <=64 characters") name its internals, not what to send.
 * A message a schema sets itself wins over these (zod: the schema's own error first, then the parse's).
 */

type Issue = z.core.$ZodRawIssue;

const withArticle = (noun: string): string => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;

/** What a value is, in the words a client's developer uses (JSON's types). */
function kindOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  // A number is named by its value: where a whole number was expected, "1.5" says more than "a number".
  if (typeof input === 'number') return String(input);
  return withArticle(typeof input);
}

const EXPECTED: Readonly<Record<string, string>> = {
  int: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
};

const expectedType = (expected: string): string => EXPECTED[expected] ?? withArticle(expected);

const plural = (count: number | bigint, noun: string): string => `${count} ${noun}${count === 1 || count === 1n ? '' : 's'}`;

/** "at most 64 characters", "at least 1 item", "at most 100": the bound in the unit of what was measured. */
function bound(origin: string, limit: number | bigint): string | undefined {
  if (origin === 'string') return plural(limit, 'character');
  if (origin === 'array' || origin === 'set') return plural(limit, 'item');
  if (origin === 'number' || origin === 'int' || origin === 'bigint') return String(limit);
  return undefined;
}

function rangeMessage(issue: z.core.$ZodRawIssue<z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall>): string | undefined {
  const big = issue.code === 'too_big';
  const limit = big ? issue.maximum : issue.minimum;
  const amount = bound(issue.origin, limit);
  if (amount === undefined) return undefined;
  const verb = issue.origin === 'string' || issue.origin === 'array' || issue.origin === 'set' ? 'have' : 'be';
  if (issue.exact) return `Must ${verb} exactly ${amount}`;
  if (issue.inclusive === false) {
    if (verb === 'be') return `Must be ${big ? 'less than' : 'greater than'} ${amount}`;
    return `Must have ${big ? 'fewer than' : 'more than'} ${amount}`;
  }
  return `Must ${verb} ${big ? 'at most' : 'at least'} ${amount}`;
}

const listed = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join(', ');

/** zod's per-parse error map: a message for the common problems, undefined for zod's own (formats, unknown keys). */
export function inputMessage(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `Required: ${expectedType(issue.expected)}`;
      return `Expected ${expectedType(issue.expected)}, not ${kindOf(issue.input)}`;
    case 'invalid_value':
      if (issue.values.length === 0) return undefined;
      return issue.input === undefined ? `Required: one of ${listed(issue.values)}` : `Must be one of ${listed(issue.values)}`;
    case 'too_big':
    case 'too_small':
      return rangeMessage(issue);
    default:
      return undefined;
  }
}
