/**
 * Where a JSON text stops being JSON, and what was expected there. JSON.parse says it in words
 * that differ between V8 versions, sometimes without a position and sometimes quoting the whole
 * input back; a client needs line and column. Runs only after JSON.parse has failed, so a valid
 * body never pays for it.
 */
export interface JsonSyntaxProblem {
  /** 0-based offset in the text (UTF-16 code units). */
  position: number;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** What the text holds there: a quoted character, or "the end of the body". */
  found: string;
  /** What would have been valid there. */
  expected: string;
}

class SyntaxStop extends Error {
  constructor(
    readonly position: number,
    readonly expected: string,
  ) {
    super(expected);
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPABLE = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]{4}$/;

/** A recursive-descent walk of RFC 8259's grammar that stops at the first byte out of place. */
class JsonWalker {
  private at = 0;
  constructor(private readonly text: string) {}

  walk(): void {
    this.value();
    this.skipWhitespace();
    if (this.at < this.text.length) throw new SyntaxStop(this.at, 'the end of the body after the JSON value');
  }

  private skipWhitespace(): void {
    while (this.at < this.text.length && WHITESPACE.has(this.text[this.at]!)) this.at++;
  }

  private value(): void {
    this.skipWhitespace();
    const char = this.text[this.at];
    if (char === '{') this.object();
    else if (char === '[') this.array();
    else if (char === '"') this.string();
    else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) this.number();
    else if (char === 't') this.literal('true');
    else if (char === 'f') this.literal('false');
    else if (char === 'n') this.literal('null');
    else throw new SyntaxStop(this.at, 'a value (object, array, string, number, true, false or null)');
  }

  private literal(word: string): void {
    for (const letter of word) {
      if (this.text[this.at] !== letter) throw new SyntaxStop(this.at, `"${word}"`);
      this.at++;
    }
  }

  /**
   * The inside of an object or an array, from its opening bracket: nothing, or `element` read one at
   * a time with a ',' between them, up to the closing bracket.
   */
  private container(close: '}' | ']', element: () => void, elementName: string): void {
    this.at++;
    this.skipWhitespace();
    if (this.text[this.at] === close) {
      this.at++;
      return;
    }
    for (;;) {
      element();
      this.skipWhitespace();
      const next = this.text[this.at];
      this.at++;
      if (next === close) return;
      if (next !== ',') throw new SyntaxStop(this.at - 1, `',' or '${close}' after the ${elementName}`);
    }
  }

  private object(): void {
    this.container('}', () => this.member(), 'property value');
  }

  private member(): void {
    this.skipWhitespace();
    if (this.text[this.at] !== '"') throw new SyntaxStop(this.at, 'a property name in double quotes');
    this.string();
    this.skipWhitespace();
    if (this.text[this.at] !== ':') throw new SyntaxStop(this.at, "':' after the property name");
    this.at++;
    this.value();
  }

  private array(): void {
    this.container(']', () => this.value(), 'array element');
  }

  private string(): void {
    this.at++;
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined) throw new SyntaxStop(this.at, "the closing '\"' of the string");
      if (char === '"') {
        this.at++;
        return;
      }
      if (char < ' ') throw new SyntaxStop(this.at, 'an escaped control character (\\n, \\t, \\u00XX) inside the string');
      if (char === '\\') {
        const escaped = this.text[this.at + 1];
        if (escaped === 'u') {
          if (!HEX.test(this.text.slice(this.at + 2, this.at + 6))) throw new SyntaxStop(this.at, 'four hex digits after \\u');
          this.at += 6;
          continue;
        }
        if (escaped === undefined || !ESCAPABLE.has(escaped))
          throw new SyntaxStop(this.at + 1, 'a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
        this.at += 2;
        continue;
      }
      this.at++;
    }
  }

  private number(): void {
    if (this.text[this.at] === '-') this.at++;
    if (this.text[this.at] === '0') this.at++;
    else this.digits('a digit');
    if (this.text[this.at] === '.') {
      this.at++;
      this.digits('a digit after the decimal point');
    }
    if (this.text[this.at] === 'e' || this.text[this.at] === 'E') {
      this.at++;
      if (this.text[this.at] === '+' || this.text[this.at] === '-') this.at++;
      this.digits('a digit in the exponent');
    }
  }

  private digits(expected: string): void {
    const start = this.at;
    while (this.text[this.at] !== undefined && this.text[this.at]! >= '0' && this.text[this.at]! <= '9') this.at++;
    if (this.at === start) throw new SyntaxStop(this.at, expected);
  }
}

/** How a character is shown in a message: quoted, control characters by name, the end as words. */
function describe(text: string, position: number): string {
  const char = text.codePointAt(position);
  if (char === undefined) return 'the end of the body';
  if (char < 0x20 || char === 0x7f) return `the control character U+${char.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCodePoint(char)}'`;
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: position - lineStart + 1 };
}

/** The first syntax problem of `text`, or undefined when it is valid JSON (or nested too deep to walk). */
export function locateJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  try {
    new JsonWalker(text).walk();
    return undefined;
  } catch (err) {
    // Nesting deeper than the stack (JSON.parse itself is iterative): no position to give.
    if (!(err instanceof SyntaxStop)) return undefined;
    return { position: err.position, ...lineAndColumn(text, err.position), found: describe(text, err.position), expected: err.expected };
  }
}
