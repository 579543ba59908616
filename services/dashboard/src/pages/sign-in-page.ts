import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type Chrome } from './layout.js';

/** The e-mail is filled in again after a failed attempt; the password never is. */
export function signInPage(chrome: Chrome, values: { email?: string } = {}): SafeHtml {
  return layout(
    'Sign in',
    chrome,
    html`<form method="post" action="/sign-in" class="stacked">
  ${csrfField(chrome.csrfToken)}
  <label>E-mail <input type="email" name="email" value="${values.email ?? ''}" required autocomplete="username" maxlength="254"></label>
  <label>Password <input type="password" name="password" required autocomplete="current-password" maxlength="200"></label>
  <button type="submit">Sign in</button>
</form>
<p>No account yet? <a href="/register">Create one</a>.</p>`,
  );
}
