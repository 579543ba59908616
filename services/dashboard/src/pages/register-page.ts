import { textField } from './form-fields.js';
import { formPage } from './form-page.js';
import { html, type SafeHtml } from './html.js';
import type { Chrome } from './layout.js';

export interface RegisterValues {
  email?: string;
  firstName?: string;
  lastName?: string;
}

const FIELDS = ['email', 'firstName', 'lastName', 'password'] as const;

export function registerPage(chrome: Chrome, values: RegisterValues = {}): SafeHtml {
  return formPage(chrome, {
    title: 'Create an account',
    action: '/register',
    fieldOrder: FIELDS,
    fields: (
      errors,
      focused,
    ) => html`${textField({ label: 'E-mail', name: 'email', type: 'email', value: values.email ?? '', attributes: html`required autocomplete="email" maxlength="254"` }, errors, focused)}
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
  <button type="submit">Create account</button>`,
    after: html`<p>Already registered? <a href="/sign-in">Sign in</a>.</p>`,
  });
}
