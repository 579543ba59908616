import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type Chrome } from './layout.js';

export interface RegisterValues {
  email?: string;
  firstName?: string;
  lastName?: string;
}

export function registerPage(chrome: Chrome, values: RegisterValues = {}): SafeHtml {
  return layout(
    'Create an account',
    chrome,
    html`<form method="post" action="/register" class="stacked">
  ${csrfField(chrome.csrfToken)}
  <label>E-mail <input type="email" name="email" value="${values.email ?? ''}" required autocomplete="email" maxlength="254"></label>
  <label>First name <input type="text" name="firstName" value="${values.firstName ?? ''}" required autocomplete="given-name" maxlength="100"></label>
  <label>Last name <input type="text" name="lastName" value="${values.lastName ?? ''}" required autocomplete="family-name" maxlength="100"></label>
  <label>Password <input type="password" name="password" required autocomplete="new-password" minlength="12" maxlength="200"></label>
  <p class="hint">At least 12 characters (at most 72 bytes). Not a common or repetitive password, and not containing the part of your e-mail before the @. Any characters are allowed.</p>
  <button type="submit">Create account</button>
</form>
<p>Already registered? <a href="/sign-in">Sign in</a>.</p>`,
  );
}
