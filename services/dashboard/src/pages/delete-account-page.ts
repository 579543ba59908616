import { formPage } from './form-page.js';
import { textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import type { Chrome } from './layout.js';

/**
 * Deleting the account (issue 32 item 5): what goes and what stays said first, then the password
 * (and the two-factor code, for accounts that have it on) that confirm it is the owner asking.
 */
export function deleteAccountPage(chrome: Chrome): SafeHtml {
  return formPage(chrome, {
    title: 'Delete your account',
    action: '/account/delete',
    fieldOrder: ['password', 'code'],
    fields: (errors, focused) => html`<p>This cannot be undone. Your e-mail address, name, password, two-factor sign-in and sessions are
erased; every API key you own is revoked, your subscription ends now, and your devices are removed. The audit trail keeps what
happened, without your address or name. <a href="/account/export">Download your data (JSON)</a> first if you want a copy.</p>
${textField({ label: 'Password', name: 'password', type: 'password', attributes: html`required autocomplete="current-password" maxlength="200"` }, errors, focused)}
${textField({ label: 'Two-factor code', name: 'code', hint: 'Only if two-factor sign-in is on: the 6 digits your authenticator app shows.', attributes: html`inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"` }, errors, focused)}
<button type="submit" class="danger">Delete my account</button>`,
    after: html`<p><a href="/">Keep my account</a></p>`,
  });
}
