import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { locateJsonSyntaxError } from '../src/json-syntax.js';

describe('locateJsonSyntaxError', () => {
  it.each([
    ['{"a":}', { position: 5, line: 1, column: 6, found: "'}'", expected: expect.stringContaining('a value') }],
    ['{"a":1', { position: 6, found: 'the end of the body', expected: "',' or '}' after the property value" }],
    ['{"a" 1}', { position: 5, expected: "':' after the property name" }],
    ['[1,2,]', { position: 5, found: "']'" }],
    ['{\n  "name": tru\n}', { line: 2, column: 14, expected: '"true"' }],
    ["{'a':1}", { position: 1, expected: 'a property name in double quotes' }],
    ['{"a":1}x', { position: 7, expected: 'the end of the body after the JSON value' }],
    ['"tab\there"', { position: 4, found: 'the control character U+0009' }],
    ['"\\x"', { position: 2, expected: expect.stringContaining('a valid escape') }],
    ['01', { position: 1 }],
    ['1.', { position: 2, expected: 'a digit after the decimal point' }],
    ['', { position: 0, found: 'the end of the body' }],
  ])('places the problem of %j', (text, problem) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(locateJsonSyntaxError(text)).toMatchObject(problem);
  });

  it('finds nothing wrong in anything JSON.parse accepts', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(locateJsonSyntaxError(text)).toBeUndefined();
      }),
    );
  });

  it('agrees with JSON.parse on arbitrary text: a problem exactly when it refuses', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((j) => j.slice(0, -1)),
        ),
        (text) => {
          let parses = true;
          try {
            JSON.parse(text);
          } catch {
            parses = false;
          }
          expect(locateJsonSyntaxError(text) === undefined).toBe(parses);
        },
      ),
    );
  });

  it('gives up (no position) on nesting deeper than the stack rather than failing', () => {
    expect(locateJsonSyntaxError('['.repeat(1_000_000))).toBeUndefined();
  });
});
