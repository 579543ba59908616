import { copyScriptElement } from '../src/pages/copy-script.js';
import { pickerScriptElement } from '../src/pages/picker-script.js';

// A browser as far as these tests need one: a cookie jar, forms sent the way an HTML form sends
// them (urlencoded, with the page's CSRF token), and redirects followed by hand so each hop can be inspected.

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  /** The path finally shown, after redirects. */
  path: string;
  /** Every Location followed on the way. */
  redirects: string[];
  /** Set-Cookie lines of every response on the way. */
  setCookies: string[];
}

export type Fields = Record<string, string | string[]>;

export interface PostOptions {
  /** The token to send; default: the one on the last page shown; false: none at all. */
  csrf?: string | false;
  headers?: Record<string, string>;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The page as a reader sees it: tags dropped, entities decoded, whitespace collapsed. */
export function textOf(html: string): string {
  return html
    .replace(/<script>[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The page without the dashboard's own script elements (copy buttons, catalog picker), to look for injected ones. */
export function withoutOwnScript(html: string): string {
  return html.replace(copyScriptElement().value, '').replace(pickerScriptElement().value, '');
}

export function csrfTokenOf(html: string): string | null {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? null;
}

export class Browser {
  readonly jar = new Map<string, string>();
  lastPage: Page | null = null;

  constructor(readonly baseUrl: string) {}

  cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      const gone = attributes.some((a) => /^max-age=0$/i.test(a)) || value === '';
      if (gone) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  /** One request, no redirect followed. */
  async send(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (this.jar.size > 0) headers.cookie = this.cookieHeader();
    const res = await fetch(this.baseUrl + path, {
      method,
      headers,
      redirect: 'manual',
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    this.remember(res.headers.getSetCookie());
    return res;
  }

  private async follow(first: Response, firstPath: string): Promise<Page> {
    let res = first;
    let path = firstPath;
    const redirects: string[] = [];
    const setCookies = [...first.headers.getSetCookie()];
    while (res.status >= 300 && res.status < 400) {
      await res.arrayBuffer();
      const location = res.headers.get('location')!;
      if (redirects.length >= 5) throw new Error(`redirect loop: ${redirects.join(' -> ')}`);
      redirects.push(location);
      path = location;
      res = await this.send('GET', location);
      setCookies.push(...res.headers.getSetCookie());
    }
    const page: Page = { status: res.status, headers: res.headers, html: await res.text(), path, redirects, setCookies };
    this.lastPage = page;
    return page;
  }

  async get(path: string): Promise<Page> {
    return this.follow(await this.send('GET', path), path);
  }

  async post(path: string, fields: Fields, options: PostOptions = {}): Promise<Page> {
    const body = new URLSearchParams();
    const csrf = options.csrf === undefined ? csrfTokenOf(this.lastPage?.html ?? '') : options.csrf;
    if (csrf) body.append('_csrf', csrf);
    for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    const res = await this.send('POST', path, {
      body: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(options.headers ?? {}) },
    });
    return this.follow(res, path);
  }
}
