import { html, type SafeHtml } from './html.js';
import { formPage } from './form-page.js';
import type { Chrome } from './layout.js';

/**
 * The e-mailed link lands here; verifying takes a button (a POST), so a mail scanner that fetches every
 * link in a message verifies nothing on the owner's behalf.
 */
export function verifyEmailPage(chrome: Chrome, token: string): SafeHtml {
  return formPage(chrome, {
    title: 'Verify your e-mail address',
    action: '/verify-email',
    fieldOrder: [],
    fields: () => html`<input type="hidden" name="token" value="${token}">
  <p>Confirm that this address is yours.</p>
  <button type="submit">Verify my address</button>`,
  });
}
