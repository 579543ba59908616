/** What went wrong, independent of transport; `statusOf` maps it to HTTP in one place. */
export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'too_many_requests'
  | 'internal'
  | 'bad_gateway'
  | 'unavailable'
  | 'gateway_timeout';

export function statusOf(kind: ErrorKind): number {
  switch (kind) {
    case 'bad_request':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'unprocessable':
      return 422;
    case 'too_many_requests':
      return 429;
    case 'internal':
      return 500;
    case 'bad_gateway':
      return 502;
    case 'unavailable':
      return 503;
    case 'gateway_timeout':
      return 504;
  }
}

/** The body's `error` for each kind unless a throw site has a more specific one (the spec's 401/403 strings). */
export const DEFAULT_TITLES: Readonly<Record<ErrorKind, string>> = {
  bad_request: 'Bad request',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  unprocessable: 'Unprocessable entity',
  too_many_requests: 'Too many requests',
  internal: 'Internal server error',
  bad_gateway: 'Bad gateway',
  unavailable: 'Service unavailable',
  gateway_timeout: 'Gateway timeout',
};

/**
 * The body's `code` for each kind unless a throw site names a more specific one (e.g. `invalid_credentials`,
 * `missing_scope`): a stable, machine-readable word that clients may switch on; `error` and `message` stay
 * the spec's words where the spec fixes them.
 */
export const DEFAULT_CODES: Readonly<Record<ErrorKind, string>> = {
  bad_request: 'bad_request',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  conflict: 'conflict',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
  unprocessable: 'unprocessable',
  too_many_requests: 'rate_limited',
  internal: 'internal_error',
  bad_gateway: 'bad_gateway',
  unavailable: 'unavailable',
  gateway_timeout: 'gateway_timeout',
};

/** What a throw site may add to an AppError beyond kind, title and message. */
export interface AppErrorOptions {
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
  /** Stable machine-readable code; defaults to DEFAULT_CODES[kind]. */
  code?: string;
  /** One sentence for a person: what to do next. Never which credential part was wrong, never internals. */
  hint?: string;
}

/** One entry of a validation failure: where (`path`) and why. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * The only error type the code throws on purpose. `title` becomes the body's `error`,
 * `message` its `message`; both are written for the client, so never put internals in them.
 */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly title: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly code: string;
  readonly hint: string | undefined;

  constructor(kind: ErrorKind, title: string, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.title = title;
    this.details = options.details;
    this.headers = options.headers;
    this.code = options.code ?? DEFAULT_CODES[kind];
    this.hint = options.hint;
  }

  get status(): number {
    return statusOf(this.kind);
  }
}
