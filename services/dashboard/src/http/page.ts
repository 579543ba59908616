import type { Logger } from '@acs/logger';
import type { SafeHtml } from '../pages/html.js';
import type { Flash } from '../session/flash.js';
import type { Session } from '../session/session.js';

/** What a page handler sees: the parsed request and the visitor's session (anonymous before sign-in). */
export interface PageRequest {
  method: string;
  path: string;
  /** The query string (only the sign-in page reads one: where to go afterwards). */
  query: URLSearchParams;
  params: Record<string, string>;
  /** The posted form (checked for its CSRF token already); empty on GET. */
  form: URLSearchParams;
  session: Session;
  /** Left by the previous response (POST-redirect-GET); shown once. */
  flash: Flash | null;
  csrfToken: string;
  requestId: string;
  log: Logger;
  /** The browser's address (X-Forwarded-For from trusted proxies only), passed on to the gateway. */
  clientAddress: string;
  /** The browser's User-Agent (at most 512 characters), passed on so a sign-in's session is labelled by its browser. */
  userAgent?: string;
}

export interface PageResponse {
  status: number;
  html?: SafeHtml;
  /** With 303: where the browser goes next. */
  location?: string;
  headers?: Record<string, string>;
  /** A new session (sign-in) or null to end it (sign-out). */
  session?: Session | null;
  /** For the next page, after the redirect. */
  flash?: Flash;
  /** Instead of a page: a JSON document (the account export), sent as is. */
  json?: unknown;
}

export type PageHandler = (req: PageRequest) => Promise<PageResponse>;

export const showPage = (html: SafeHtml, status = 200, headers?: Record<string, string>): PageResponse => ({
  status,
  html,
  ...(headers ? { headers } : {}),
});

/** 303: the browser follows with a GET, so reloading the next page never re-sends the form. */
export const redirectTo = (location: string, extras: Pick<PageResponse, 'session' | 'flash'> = {}): PageResponse => ({
  status: 303,
  location,
  ...extras,
});
