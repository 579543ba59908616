import type { ServerResponse } from 'node:http';
import type { SafeHtml } from '../pages/html.js';
import type { PageResponse } from './page.js';

/** Writes a page handler's answer; the security headers are already on `res`. */
export function sendPage(res: ServerResponse, response: PageResponse, cookies: string[]): void {
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  if (cookies.length > 0) res.setHeader('Set-Cookie', cookies);
  if (response.location) res.setHeader('Location', response.location);
  if (response.json !== undefined) {
    sendJson(res, response.status, response.json);
    return;
  }
  if (!response.html) {
    res.end();
    return;
  }
  sendHtml(res, response.status, response.html);
}

export function sendHtml(res: ServerResponse, status: number, page: SafeHtml): void {
  const body = Buffer.from(page.value, 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
