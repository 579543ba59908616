import { firstInvalid, textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type Chrome } from './layout.js';

export interface RegisterValues {
  email?: string;
  firstName?: string;
  lastName?: string;
}

const FIELDS = ['email', 'firstName', 'lastName', 'password'] as const;

export function registerPage(chrome: Chrome, values: RegisterValues = {}): SafeHtml {
  const errors = chrome.fieldErrors;
  const focused = firstInvalid(FIELDS, errors);
  return layout(
    'Create an account',
    chrome,
    html`<form method="post" action="/register" class="stacked">
  ${csrfField(chrome.csrfToken)}
  ${textField({ label: 'E-mail', name: 'email', type: 'email', value: values.email ?? '', attributes: html`required autocomplete="email" maxlength="254"` }, errors, focused)}
  ${textField({ label: 'First name', name: 'firstName', value: values.firstName ?? '', attributes: html`required autocomplete="given-name" maxlength="100"` }, errors, focused)}
  ${textField({ label: 'Last name', name: 'lastName', value: values.lastName ?? '', attributes: html`required autocomplete="family-name" maxlength="100"` }, errors, focused)}
  ${textField(
    {
      label: 'Password',
      name: 'password',
      type: 'password',
      attributes: html`required autocomplete="new-password" minlength="12" maxlength="200"`,
      hint: 'At least 12 characters (at most 72 bytes). Not a common or repetitive password, and not containing the part of your e-mail before the @. Any characters are allowed.',
    },
    errors,
    focused,
  )}
  <button type="submit">Create account</button>
</form>
<p>Already registered? <a href="/sign-in">Sign in</a>.</p>`,
  );
}
