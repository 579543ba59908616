import { textField } from './form-fields.js';
import { formPage } from './form-page.js';
import { html, type SafeHtml } from './html.js';
import type { Chrome } from './layout.js';

export interface SignInValues {
  email?: string;
  /** The page the visitor asked for before signing in (already checked to be one of ours). */
  next?: string | null;
}

/** The e-mail is filled in again after a failed attempt; the password never is. */
export function signInPage(chrome: Chrome, values: SignInValues = {}): SafeHtml {
  return formPage(chrome, {
    title: 'Sign in',
    action: '/sign-in',
    fieldOrder: ['email', 'password'],
    fields: (errors, focused) => html`${values.next ? html`<input type="hidden" name="next" value="${values.next}">` : ''}
  ${textField({ label: 'E-mail', name: 'email', type: 'email', value: values.email ?? '', attributes: html`required autocomplete="username" maxlength="254"` }, errors, focused)}
  ${textField({ label: 'Password', name: 'password', type: 'password', attributes: html`required autocomplete="current-password" maxlength="200"` }, errors, focused)}
  <button type="submit">Sign in</button>`,
    after: html`<p>No account yet? <a href="/register">Create one</a>.</p>
<p><a href="/forgot-password">Forgot your password?</a></p>`,
  });
}
