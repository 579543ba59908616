import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { AppError } from '@acs/errors';
import { parseInput } from '../src/validate.js';

/** The details parseInput's 400 gives for `input` against `schema`. */
function detailsOf(schema: z.ZodType, input: unknown): { path: string; message: string }[] {
  try {
    parseInput(schema, input, 'body');
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details ?? [];
  }
  throw new Error('the input was accepted');
}

const device = z.strictObject({
  serialNumber: z.string().min(1).max(64),
  name: z.string(),
  count: z.int().min(1).max(100),
  tags: z.array(z.string()).max(2),
  kind: z.enum(['dac', 'amp']),
  ratio: z.number().gt(0).lt(1),
  public: z.boolean(),
  note: z.string({ error: 'note: what the schema says itself' }),
});

describe('the messages of a 400 for the common problems', () => {
  it('names what a missing field must be', () => {
    expect(detailsOf(device, {})).toEqual([
      { path: 'body.serialNumber', message: 'required: a string' },
      { path: 'body.name', message: 'required: a string' },
      { path: 'body.count', message: 'required: a number' },
      { path: 'body.tags', message: 'required: an array' },
      { path: 'body.kind', message: 'required: one of "dac", "amp"' },
      { path: 'body.ratio', message: 'required: a number' },
      { path: 'body.public', message: 'required: true or false' },
      // A schema's own message wins.
      { path: 'body.note', message: 'note: what the schema says itself' },
    ]);
  });

  it('names what was expected and what came', () => {
    const details = detailsOf(device, {
      serialNumber: 7,
      name: null,
      count: 1.5,
      tags: 'a',
      kind: 'tube',
      ratio: '0.5',
      public: 'yes',
      note: 'ok',
    });
    expect(details).toEqual([
      { path: 'body.serialNumber', message: 'expected a string, not 7' },
      { path: 'body.name', message: 'expected a string, not null' },
      { path: 'body.count', message: 'expected a whole number, not 1.5' },
      { path: 'body.tags', message: 'expected an array, not a string' },
      { path: 'body.kind', message: 'must be one of "dac", "amp"' },
      { path: 'body.ratio', message: 'expected a number, not a string' },
      { path: 'body.public', message: 'expected true or false, not a string' },
    ]);
    expect(detailsOf(z.object({ list: z.array(z.string()) }), { list: {} })).toEqual([
      { path: 'body.list', message: 'expected an array, not an object' },
    ]);
    expect(detailsOf(z.strictObject({}), [])).toEqual([{ path: 'body', message: 'expected an object, not an array' }]);
    // A query's text coerced to a number: "abc" became NaN, which the client never sent.
    expect(detailsOf(z.object({ days: z.coerce.number().int() }), { days: 'abc' })).toEqual([
      { path: 'body.days', message: 'expected a number' },
    ]);
  });

  it('gives a range in the unit of what was measured', () => {
    const base = { serialNumber: 'x', name: 'n', count: 1, tags: [], kind: 'dac', ratio: 0.5, public: true, note: 'ok' };
    expect(detailsOf(device, { ...base, serialNumber: '' })).toEqual([
      { path: 'body.serialNumber', message: 'must have at least 1 character' },
    ]);
    expect(detailsOf(device, { ...base, serialNumber: 'x'.repeat(65) })).toEqual([
      { path: 'body.serialNumber', message: 'must have at most 64 characters' },
    ]);
    expect(detailsOf(device, { ...base, count: 0 })).toEqual([{ path: 'body.count', message: 'must be at least 1' }]);
    expect(detailsOf(device, { ...base, count: 101 })).toEqual([{ path: 'body.count', message: 'must be at most 100' }]);
    expect(detailsOf(device, { ...base, tags: ['a', 'b', 'c'] })).toEqual([{ path: 'body.tags', message: 'must have at most 2 items' }]);
    expect(detailsOf(device, { ...base, ratio: 0 })).toEqual([{ path: 'body.ratio', message: 'must be greater than 0' }]);
    expect(detailsOf(device, { ...base, ratio: 1 })).toEqual([{ path: 'body.ratio', message: 'must be less than 1' }]);
    expect(detailsOf(z.object({ code: z.string().length(6) }), { code: '123' })).toEqual([
      { path: 'body.code', message: 'must have exactly 6 characters' },
    ]);
  });

  it("names an unknown field at the field, and leaves zod's own words for formats", () => {
    expect(detailsOf(device.pick({ name: true }), { name: 'n', colour: 'red' })).toEqual([
      { path: 'body.colour', message: 'unknown field' },
    ]);
    // A name that differs from one the operation takes only in case: the one it takes.
    expect(detailsOf(device.pick({ name: true, serialNumber: true }), { name: 'n', serialNumber: 's', serialnumber: 's' })).toEqual([
      { path: 'body.serialnumber', message: 'unknown field; did you mean "serialNumber"?' },
    ]);
    expect(detailsOf(z.object({ email: z.email() }), { email: 'not-an-address' })).toEqual([
      { path: 'body.email', message: 'Invalid email address' },
    ]);
  });
});
