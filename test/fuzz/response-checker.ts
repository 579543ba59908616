import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Answer } from './http-exchange.js';
import type { OpenApiDocument, Operation } from './served-document.js';

// ajv-formats is CommonJS: its default export arrives as the module object or as the function, depending on the loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** Stack frames, file paths and database error texts: none may reach a client. */
const LEAKS: [string, RegExp][] = [
  ['stack frame', /\bat [^\s()]+ \(?(file:|node:|\/)[^)]*:\d+:\d+\)?/],
  ['source path', /node_modules|\/src\/[\w/-]+\.ts\b|\/dist\/[\w/-]+\.js\b/],
  [
    'SQL error',
    /SQLSTATE|syntax error at or near|violates (?:not-null|unique|foreign key|check) constraint|invalid byte sequence for encoding|relation "[^"]+" does not exist|column "[^"]+" of relation|out of range for type|invalid input syntax for type/i,
  ],
  ['exception name', /\b(?:TypeError|RangeError|ReferenceError|SyntaxError): /],
];

/**
 * Checks answers against the served document: the status is declared for the operation, the body
 * matches the declared schema (the error shape for every 4xx/5xx), X-Request-Id is present, and
 * nothing internal leaks. Returns what is wrong, empty when nothing is.
 */
export class ResponseChecker {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateFormats: true }));
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly errorSchema: ValidateFunction;

  constructor(doc: OpenApiDocument) {
    this.errorSchema = this.ajv.compile(doc.components.schemas.Error!);
  }

  private validator(op: Operation, status: string): ValidateFunction | null {
    const id = `${op.id} ${status}`;
    const cached = this.validators.get(id);
    if (cached) return cached;
    const schema = op.responses[status]?.content?.['application/json']?.schema;
    if (!schema) return null;
    const validate = schema.$ref === '#/components/schemas/Error' ? this.errorSchema : this.ajv.compile(schema);
    this.validators.set(id, validate);
    return validate;
  }

  /** Problems of an answer to `op` (null: a request that met no operation, such as a malformed request line). */
  problems(op: Operation | null, answer: Answer): string[] {
    const problems: string[] = [];
    const { status, text } = answer;
    if (status >= 500) problems.push(`answered ${status}`);
    if (op && !op.responses[String(status)]) problems.push(`status ${status} is not declared for ${op.id}`);
    if (!answer.headers['x-request-id']) problems.push('no X-Request-Id header');
    for (const [what, pattern] of LEAKS) if (pattern.test(text)) problems.push(`the body shows a ${what}`);
    let body: unknown;
    // An operation that declares text/csv answers it when asked (format=csv): the body is then not JSON.
    const csv =
      status < 400 &&
      op?.responses[String(status)]?.content?.['text/csv'] !== undefined &&
      String(answer.headers['content-type'] ?? '').startsWith('text/csv');
    const expectsJson = !csv && (status >= 400 || op?.responses[String(status)]?.content !== undefined);
    if (expectsJson) {
      if (!String(answer.headers['content-type'] ?? '').startsWith('application/json'))
        problems.push(`content-type ${String(answer.headers['content-type'])} on ${status}`);
      try {
        body = JSON.parse(text);
      } catch {
        problems.push(`the ${status} body is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
        return problems;
      }
      const validate = status >= 400 ? this.errorSchema : op ? this.validator(op, String(status)) : null;
      if (validate && !validate(body))
        problems.push(`the ${status} body does not match its schema: ${this.ajv.errorsText(validate.errors)}`);
    }
    return problems;
  }
}
