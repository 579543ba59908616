import { html, type SafeHtml } from './html.js';

/** What every page needs around its content. */
export interface Chrome {
  csrfToken: string;
  signedIn: boolean;
  /** A success message (from the previous action). */
  notice?: string | null;
  /** What went wrong with the form just sent. */
  error?: string | null;
}

/** Every POST form carries this; the server checks it against the session before anything else. */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="_csrf" value="${token}">`;

function navigation(chrome: Chrome): SafeHtml {
  if (!chrome.signedIn) {
    return html`<nav><a href="/sign-in">Sign in</a> <a href="/register">Create an account</a></nav>`;
  }
  return html`<nav>
      <a href="/">Overview</a> <a href="/keys">API keys</a> <a href="/subscriptions">Subscriptions</a> <a href="/devices">Devices</a>
      <form method="post" action="/sign-out" class="inline">${csrfField(chrome.csrfToken)}<button type="submit" class="link">Sign out</button></form>
    </nav>`;
}

export function layout(title: string, chrome: Chrome, content: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Audio platform account</title>
<link rel="stylesheet" href="/assets/dashboard.css">
</head>
<body>
<header class="top"><a class="brand" href="/">Audio platform account</a>${navigation(chrome)}</header>
<main>
<h1>${title}</h1>
${chrome.notice ? html`<p class="notice" role="status">${chrome.notice}</p>` : ''}
${chrome.error ? html`<p class="error" role="alert">${chrome.error}</p>` : ''}
${content}
</main>
</body>
</html>
`;
}
