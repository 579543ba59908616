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

  constructor(
    kind: ErrorKind,
    title: string,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.title = title;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): number {
    return statusOf(this.kind);
  }
}
