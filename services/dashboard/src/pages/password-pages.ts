import { firstInvalid, textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type Chrome } from './layout.js';

const POLICY_HINT = 'At least 12 characters; not a common password and not containing your e-mail name. A passphrase is good.';

/** Signed in: change the password with the current one; every other sign-in ends. */
export function changePasswordPage(chrome: Chrome): SafeHtml {
  const errors = chrome.fieldErrors;
  const focused = firstInvalid(['currentPassword', 'newPassword'], errors);
  return layout(
    'Change your password',
    chrome,
    html`<p>Changing the password signs you out everywhere else (other browsers, apps); this browser stays signed in.</p>
<form method="post" action="/account/password" class="stacked">
  ${csrfField(chrome.csrfToken)}
  ${textField({ label: 'Current password', name: 'currentPassword', type: 'password', attributes: html`required autocomplete="current-password" maxlength="200"` }, errors, focused)}
  ${textField({ label: 'New password', name: 'newPassword', type: 'password', hint: POLICY_HINT, attributes: html`required autocomplete="new-password" minlength="12" maxlength="200"` }, errors, focused)}
  <button type="submit">Change password</button>
</form>`,
  );
}

/** Signed out: ask for a reset link. The answer is the same whether or not the address has an account. */
export function forgotPasswordPage(chrome: Chrome, email = ''): SafeHtml {
  const errors = chrome.fieldErrors;
  return layout(
    'Reset your password',
    chrome,
    html`<p>Enter the e-mail address of your account: we send it a link to choose a new password, valid for 15 minutes.</p>
<form method="post" action="/forgot-password" class="stacked">
  ${csrfField(chrome.csrfToken)}
  ${textField({ label: 'E-mail', name: 'email', type: 'email', value: email, attributes: html`required autocomplete="username" maxlength="254"` }, errors, firstInvalid(['email'], errors))}
  <button type="submit">Send the link</button>
</form>
<p><a href="/sign-in">Back to sign in</a></p>`,
  );
}

/** From the e-mailed link: choose the new password (the token rides in a hidden field, never in a log line). */
export function resetPasswordPage(chrome: Chrome, token: string): SafeHtml {
  const errors = chrome.fieldErrors;
  return layout(
    'Choose a new password',
    chrome,
    html`<p>Setting it signs you out everywhere; then sign in with the new password.</p>
<form method="post" action="/reset-password" class="stacked">
  ${csrfField(chrome.csrfToken)}
  <input type="hidden" name="token" value="${token}">
  ${textField({ label: 'New password', name: 'newPassword', type: 'password', hint: POLICY_HINT, attributes: html`required autocomplete="new-password" minlength="12" maxlength="200"` }, errors, firstInvalid(['newPassword'], errors))}
  <button type="submit">Set the password</button>
</form>
<p><a href="/forgot-password">Ask for a new link</a></p>`,
  );
}
