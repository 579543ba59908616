import type { z } from 'zod';

/*
 * The messages of a 400's `details` for the problems every schema meets: a missing field, a value of the wrong
 * type, a length or number out of range, a value not in a list. zod's own ("Invalid input: expected string,
 * received undefined", "Too big: expected string to have <=64 characters") name its internals, not what to send.
 * A message a schema sets itself wins over these (zod: the schema's own error first, then the parse's).
 */

type Issue = z.core.$ZodRawIssue;

const withArticle = (noun: string): string => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;

/** What a value is, in the words a client's developer uses (JSON's types); null when there is nothing to say. */
function kindOf(input: unknown): string | null {
  // A query's text a schema coerced to a number and got NaN: the text is gone, and "NaN" was never sent.
  if (Number.isNaN(input)) return null;
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
  if (issue.exact) return `must ${verb} exactly ${amount}`;
  if (issue.inclusive === false) {
    if (verb === 'be') return `must be ${big ? 'less than' : 'greater than'} ${amount}`;
    return `must have ${big ? 'fewer than' : 'more than'} ${amount}`;
  }
  return `must ${verb} ${big ? 'at most' : 'at least'} ${amount}`;
}

/** A missing value, or one of the wrong type. */
function typeMessage(expected: string, input: unknown): string {
  if (input === undefined) return `required: ${expectedType(expected)}`;
  const kind = kindOf(input);
  return kind === null ? `expected ${expectedType(expected)}` : `expected ${expectedType(expected)}, not ${kind}`;
}

const listed = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join(', ');

/** zod's per-parse error map: a message for the common problems, undefined for zod's own (formats; unknown keys: problemsOf). */
export function inputMessage(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return typeMessage(issue.expected, issue.input);
    case 'invalid_value':
      if (issue.values.length === 0) return undefined;
      return issue.input === undefined ? `required: one of ${listed(issue.values)}` : `must be one of ${listed(issue.values)}`;
    case 'too_big':
    case 'too_small':
      return rangeMessage(issue);
    default:
      return undefined;
  }
}

/** One problem of an input, where it is (the schema's path) and what to send instead. */
export interface InputProblem {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * An issue's problems. A name the schema does not take is reported at the name itself, where the typo is, as
 * `unknown` says ("unknown field"), with the top-level name it differs from only in case when there is one
 * (`pagesize`: did you mean "pageSize"?); every other issue is one problem at its own path.
 */
export function problemsOf(issue: z.core.$ZodIssue, unknown: string, topLevelNames: readonly string[] = []): InputProblem[] {
  if (issue.code !== 'unrecognized_keys') return [{ path: issue.path, message: issue.message }];
  return issue.keys.map((key) => {
    const near = issue.path.length === 0 ? topLevelNames.find((name) => name.toLowerCase() === key.toLowerCase()) : undefined;
    return { path: [...issue.path, key], message: near === undefined ? unknown : `${unknown}; did you mean "${near}"?` };
  });
}
