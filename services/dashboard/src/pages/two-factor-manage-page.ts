import { textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type Chrome } from './layout.js';

const CODE_ATTRIBUTES = html`required autocomplete="one-time-code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6"`;

/**
 * Two-factor sign-in is on: new recovery codes (a current code), or turning it off (the password and
 * a current code). Two forms, each with its own fields, so an error shows beside the form it belongs to.
 */
export function manageTwoFactorPage(chrome: Chrome, failed: 'regenerate' | 'disable' | null = null): SafeHtml {
  const errors = chrome.fieldErrors;
  const regenerateErrors = failed === 'regenerate' ? errors : undefined;
  const disableErrors = failed === 'disable' ? errors : undefined;
  return layout(
    'Two-factor sign-in',
    chrome,
    html`<p>Two-factor sign-in is on: signing in asks for a code from your authenticator app as well as your password.</p>
<h2>New recovery codes</h2>
<p>The codes you have now stop working; the new ones are shown once.</p>
<form method="post" action="/account/two-factor" class="stacked">
  ${csrfField(chrome.csrfToken)}
  <input type="hidden" name="action" value="regenerate">
  ${textField({ label: 'Code', name: 'code', attributes: CODE_ATTRIBUTES }, regenerateErrors, failed === 'regenerate' ? 'code' : null)}
  <button type="submit">New recovery codes</button>
</form>
<h2>Turn two-factor sign-in off</h2>
<form method="post" action="/account/two-factor" class="stacked">
  ${csrfField(chrome.csrfToken)}
  <input type="hidden" name="action" value="disable">
  ${textField({ label: 'Password', name: 'password', type: 'password', attributes: html`required autocomplete="current-password" maxlength="200"` }, disableErrors, failed === 'disable' && disableErrors?.password ? 'password' : null)}
  ${textField({ label: 'Code', name: 'disableCode', attributes: CODE_ATTRIBUTES }, disableErrors, failed === 'disable' && disableErrors?.disableCode ? 'disableCode' : null)}
  <button type="submit" class="danger">Turn off</button>
</form>`,
  );
}
