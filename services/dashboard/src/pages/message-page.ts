import { html, type SafeHtml } from './html.js';
import { layout, type Chrome } from './layout.js';

/** 403, 404, 405, 413, 415, 500: a sentence and a way back, never internals. */
export function messagePage(chrome: Chrome, title: string, message: string): SafeHtml {
  return layout(title, chrome, html`<p>${message}</p><p><a href="/">Back to your account</a></p>`);
}
