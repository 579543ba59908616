import { copyScriptElement } from './copy-script.js';
import { html, type SafeHtml } from './html.js';

/** What every page needs around its content. */
export interface Chrome {
  csrfToken: string;
  signedIn: boolean;
  /** The page's path: its navigation link is marked as the current page. */
  path?: string;
  /** A success message (from the previous action). */
  notice?: string | null;
  /** What went wrong, when it is not about one field (a field's message is beside that field only). */
  error?: string | null;
  /** Per form field (the form's `name`): what is wrong with it. */
  fieldErrors?: Record<string, string>;
}

/** Every POST form carries this; the server checks it against the session before anything else. */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="_csrf" value="${token}">`;

const SIGNED_IN_LINKS = [
  { href: '/', label: 'Overview' },
  { href: '/keys', label: 'API keys' },
  { href: '/subscriptions', label: 'Subscriptions' },
  { href: '/devices', label: 'Devices' },
  { href: '/activity', label: 'Activity' },
  { href: '/webhooks', label: 'Webhooks' },
];

/** The section a path belongs to: /keys/…/revoke is still "API keys". */
function isCurrent(href: string, path: string | undefined): boolean {
  if (path === undefined) return false;
  return href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`);
}

const navLink = (href: string, label: string, path: string | undefined): SafeHtml =>
  html`<a href="${href}"${isCurrent(href, path) ? html` aria-current="page"` : ''}>${label}</a>`;

function navigation(chrome: Chrome): SafeHtml {
  if (!chrome.signedIn) {
    return html`<nav aria-label="Account">${navLink('/sign-in', 'Sign in', chrome.path)} ${navLink('/register', 'Create an account', chrome.path)}</nav>`;
  }
  return html`<nav aria-label="Account">
      ${SIGNED_IN_LINKS.map((link) => html`${navLink(link.href, link.label, chrome.path)} `)}
      <form method="post" action="/sign-out" class="inline">${csrfField(chrome.csrfToken)}<button type="submit" class="link">Sign out</button></form>
    </nav>`;
}

/** One message per error: when fields carry their own, the summary would say it a second time. */
const hasFieldErrors = (chrome: Chrome): boolean => Object.keys(chrome.fieldErrors ?? {}).length > 0;

/** `script`: a page's own script besides the copy buttons' (the devices page's catalog picker). */
export function layout(title: string, chrome: Chrome, content: SafeHtml, script?: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Audio platform account</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/dashboard.css">
<meta name="color-scheme" content="light dark">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/">Audio platform account</a>${navigation(chrome)}</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${chrome.notice ? html`<p class="notice" role="status">${chrome.notice}</p>` : ''}
${chrome.error && !hasFieldErrors(chrome) ? html`<p class="error" role="alert" id="form-error">${chrome.error}</p>` : ''}
${content}
</main>
${copyScriptElement()}${script ?? ''}
</body>
</html>
`;
}
