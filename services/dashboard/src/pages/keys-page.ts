import type { ApiKeyView } from '@acs/contracts';
import { ASSIGNABLE_SCOPES } from '../account/scopes.js';
import { SUBSCRIPTION_NEEDED } from '../gateway/user-messages.js';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';

export interface CreatedKey {
  name: string;
  key: string;
  secret: string;
  scopes: string;
  environment: string;
}

export interface KeyDraft {
  name: string;
  scopes: string[];
  environment: string;
}

/** The user's keys, or why they cannot be listed right now. */
export type KeyListing = { kind: 'keys'; keys: ApiKeyView[] } | { kind: 'subscription-needed' } | { kind: 'unavailable'; message: string };

export interface KeysPageData {
  listing: KeyListing;
  /** Just created: the only page view that ever shows its secret. */
  created: CreatedKey | null;
  /** The create form as it was sent, after an error. */
  draft?: KeyDraft;
}

function scopeBoxes(checked: readonly string[]): SafeHtml {
  return html`${ASSIGNABLE_SCOPES.map(
    (scope) => html`<label class="check"><input type="checkbox" name="scopes" value="${scope.name}"${checked.includes(scope.name) ? html` checked` : ''}> <code>${scope.name}</code> <span class="hint">${scope.grants}</span></label>`,
  )}`;
}

function createdPanel(created: CreatedKey): SafeHtml {
  return html`<section class="secret" aria-labelledby="created-title">
  <h2 id="created-title">Key “${created.name}” created</h2>
  <p class="warning"><strong>Copy the secret now: it is shown only this once.</strong> It is not stored anywhere we can read it back, and this page will not show it again. If you lose it, revoke the key and create a new one.</p>
  <dl class="facts">
    <dt>X-Api-Key</dt><dd><code>${created.key}</code></dd>
    <dt>X-Api-Secret</dt><dd><code class="secret-value">${created.secret}</code></dd>
    <dt>Scopes</dt><dd>${created.scopes || '(none)'}</dd>
    <dt>Environment</dt><dd>${created.environment}</dd>
  </dl>
</section>`;
}

function createForm(chrome: Chrome, draft: KeyDraft | undefined): SafeHtml {
  const environment = draft?.environment ?? 'live';
  return html`<section>
  <h2>Create a key</h2>
  <form method="post" action="/keys" class="stacked">
    ${csrfField(chrome.csrfToken)}
    <label>Name <input type="text" name="name" value="${draft?.name ?? ''}" required maxlength="100" placeholder="my app"></label>
    <fieldset><legend>Scopes</legend>${scopeBoxes(draft?.scopes ?? [])}</fieldset>
    <label>Environment <select name="environment">
      <option value="live"${environment === 'live' ? html` selected` : ''}>live</option>
      <option value="test"${environment === 'test' ? html` selected` : ''}>test</option>
    </select></label>
    <button type="submit">Create key</button>
  </form>
</section>`;
}

function keyRow(chrome: Chrome, key: ApiKeyView): SafeHtml {
  const id = encodeURIComponent(key.id);
  const scopes = key.scopes.split(' ').filter((s) => s.length > 0);
  const status = key.revokedAt ? html`revoked ${formatTime(key.revokedAt)}` : html`active`;
  const actions = key.revokedAt
    ? html`<td>${key.scopes || '(none)'}</td><td></td>`
    : html`<td><form method="post" action="/keys/${id}/scopes" class="scopes">${csrfField(chrome.csrfToken)}${scopeBoxes(scopes)}<button type="submit">Save scopes</button></form></td>
      <td><form method="post" action="/keys/${id}/revoke">${csrfField(chrome.csrfToken)}<button type="submit" class="danger">Revoke</button></form></td>`;
  return html`<tr class="${key.revokedAt ? 'revoked' : 'active'}">
    <td>${key.name}</td><td><code>${key.key}</code></td><td>${key.environment}</td>
    <td>${formatTime(key.createdAt)}</td><td>${key.lastUsedAt ? formatTime(key.lastUsedAt) : 'never'}</td><td>${status}</td>
    ${actions}
  </tr>`;
}

function keyTable(chrome: Chrome, keys: ApiKeyView[]): SafeHtml {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  return html`<table class="keys">
  <thead><tr><th>Name</th><th>Key</th><th>Environment</th><th>Created</th><th>Last used</th><th>Status</th><th>Scopes</th><th></th></tr></thead>
  <tbody>${keys.map((key) => keyRow(chrome, key))}</tbody>
</table>
<p class="hint">Secrets are never shown again after creation. Scope changes and revocations apply to the key's very next request. Last use is recorded within about 10 seconds.</p>`;
}

function listingBody(chrome: Chrome, data: KeysPageData): SafeHtml {
  switch (data.listing.kind) {
    case 'subscription-needed':
      return html`<p class="warning" id="subscription-needed">${SUBSCRIPTION_NEEDED}</p><p><a href="/subscriptions">See the plans</a></p>`;
    case 'unavailable':
      return html`<p class="error" role="alert">${data.listing.message}</p>`;
    case 'keys':
      return html`${createForm(chrome, data.draft)}<section><h2>Your keys</h2>${keyTable(chrome, data.listing.keys)}</section>`;
  }
}

/** A just-created key comes first and whatever the listing did: its secret exists nowhere else. */
export function keysPage(chrome: Chrome, data: KeysPageData): SafeHtml {
  return layout('API keys', chrome, html`${data.created ? createdPanel(data.created) : ''}${listingBody(chrome, data)}`);
}
