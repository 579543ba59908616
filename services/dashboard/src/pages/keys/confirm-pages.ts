import type { ApiKeyView } from '@acs/contracts';
import { html, type SafeHtml } from '../html.js';
import { GRACE_CHOICES } from '../key-lifecycle.js';
import { confirmPage } from '../form-page.js';
import { csrfField, type Chrome } from '../layout.js';

/** Asked before anything is revoked: what will happen, one button to do it, one way back. */
export function revokeKeyPage(chrome: Chrome, key: ApiKeyView): SafeHtml {
  const id = encodeURIComponent(key.id);
  return confirmPage(
    chrome,
    'Revoke this key?',
    html`<p>Revoke key <strong>“${key.name}”</strong> (<code>${key.key}</code>)? Apps using it stop working at once: its very next request is refused. This cannot be undone; a new key gets a new secret.</p>`,
    html`<form method="post" action="/keys/${id}/revoke" class="confirm-actions">${csrfField(chrome.csrfToken)}
    <button type="submit" class="danger-solid">Revoke key “${key.name}”</button>
    <a class="button secondary" href="/keys/${id}">Keep the key</a>
  </form>`,
  );
}

/** Asked before a secret is rolled: what will happen, how long the old secret keeps working. */
export function rollKeyPage(chrome: Chrome, key: ApiKeyView): SafeHtml {
  const id = encodeURIComponent(key.id);
  return confirmPage(
    chrome,
    'Roll the secret of this key?',
    html`<p>Give key <strong>“${key.name}”</strong> (<code>${key.key}</code>) a new secret? The key itself stays the same. The new secret is shown once, on the next page. Until the grace period ends, apps may use either secret; then only the new one works.</p>`,
    html`<form method="post" action="/keys/${id}/roll" class="stacked">${csrfField(chrome.csrfToken)}
    <fieldset><legend>The old secret keeps working for</legend>
      ${GRACE_CHOICES.map((choice, i) => html`<div class="check"><input type="radio" id="grace-${choice.value}" name="graceSeconds" value="${choice.value}"${i === 1 ? html` checked` : ''}><label for="grace-${choice.value}">${choice.label}</label></div>`)}
    </fieldset>
    <p class="confirm-actions">
      <button type="submit">Roll the secret of “${key.name}”</button>
      <a class="button secondary" href="/keys/${id}">Keep the current secret</a>
    </p>
  </form>`,
  );
}
