import { firstInvalid, textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type Chrome } from './layout.js';
import { formPage } from './form-page.js';

/** The second step of a sign-in: the app's code (or a recovery code); the challenge rides in a hidden field. */
export function twoFactorSignInPage(chrome: Chrome, values: { challenge: string; next?: string | null }): SafeHtml {
  return formPage(chrome, {
    title: 'Two-factor sign-in',
    action: '/sign-in/two-factor',
    fieldOrder: ['code'],
    fields: (errors, focused) => html`<input type="hidden" name="challenge" value="${values.challenge}">
  ${values.next ? html`<input type="hidden" name="next" value="${values.next}">` : ''}
  ${textField({ label: 'Code', name: 'code', hint: 'The 6 digits your authenticator app shows, or one of your recovery codes.', attributes: html`required autocomplete="one-time-code" maxlength="64"` }, errors, focused ?? 'code')}
  <button type="submit">Sign in</button>`,
  });
}

/** Enrollment: a QR code of the otpauth:// URI to scan (or the secret to type), then a first code turns it on. */
export function enrollTwoFactorPage(
  chrome: Chrome,
  enrollment: { secret: string; otpauthUri: string } | null,
  qrCode: SafeHtml | null = null,
): SafeHtml {
  const errors = chrome.fieldErrors;
  if (!enrollment)
    return layout(
      'Two-factor sign-in',
      chrome,
      html`<p>Sign in with a code from an authenticator app as well as your password.</p>
<form method="post" action="/account/two-factor" class="stacked">${csrfField(chrome.csrfToken)}<input type="hidden" name="action" value="enroll"><button type="submit">Set up two-factor sign-in</button></form>`,
    );
  return layout(
    'Two-factor sign-in',
    chrome,
    html`<p>Scan this code with your authenticator app (or type the key, or open the link on the phone that has it), then type the code it shows.</p>
${qrCode ? html`<figure class="qr">${qrCode}</figure>` : ''}
<dl class="facts"><dt>Key</dt><dd><code id="two-factor-secret">${enrollment.secret}</code></dd>
<dt>Link</dt><dd><a href="${enrollment.otpauthUri}">${enrollment.otpauthUri}</a></dd></dl>
<form method="post" action="/account/two-factor" class="stacked">
  ${csrfField(chrome.csrfToken)}
  <input type="hidden" name="action" value="confirm">
  <input type="hidden" name="secret" value="${enrollment.secret}">
  <input type="hidden" name="otpauthUri" value="${enrollment.otpauthUri}">
  ${textField({ label: 'Code', name: 'code', attributes: html`required autocomplete="one-time-code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6"` }, errors, firstInvalid(['code'], errors))}
  <button type="submit">Turn on</button>
</form>`,
  );
}

/** Shown once: the recovery codes (after turning it on, or new ones). */
export function recoveryCodesPage(chrome: Chrome, codes: string[], title = 'Two-factor sign-in is on'): SafeHtml {
  return layout(
    title,
    chrome,
    html`<p>Keep these recovery codes somewhere safe: each signs you in once if you lose your authenticator. They are not shown again.</p>
<ul id="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a href="/">Back to your account</a></p>`,
  );
}
