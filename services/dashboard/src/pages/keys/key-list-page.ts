import type { ApiKeyView } from '@acs/contracts';
import { SUBSCRIPTION_NEEDED } from '../../gateway-client/user-messages.js';
import { html, type SafeHtml } from '../html.js';
import { expiryText, exposureNotice, keyStatus } from '../key-lifecycle.js';
import { formatTime } from '../labels.js';
import { layout, type Chrome } from '../layout.js';
import { secretPanels, type CreatedKey, type RolledKey } from './secret-panels.js';

/** The user's keys, or why they cannot be listed right now. */
export type KeyListing = { kind: 'keys'; keys: ApiKeyView[] } | { kind: 'subscription-needed' } | { kind: 'unavailable'; message: string };

export interface KeysPageData {
  listing: KeyListing;
  /** Left by a form whose redirect came here: the only page view that shows that secret. */
  created: CreatedKey | null;
  rolled?: RolledKey | null;
  publicGatewayUrl: string;
}

const NONE = html`<span class="hint">none</span>`;

function scopeList(scopes: string): SafeHtml {
  const names = scopes.split(' ').filter((s) => s.length > 0);
  return names.length === 0 ? NONE : html`${names.map((name, i) => html`${i > 0 ? ' ' : ''}<code class="scope">${name}</code>`)}`;
}

/**
 * One row per key, the facts a reader scans for (as Stripe's and Unkey's lists): the name links to
 * the key's own page, where its chart, settings and actions are. On a phone each row becomes a
 * block of labelled lines (CSS only).
 */
function keyTable(keys: ApiKeyView[], caption: string): SafeHtml {
  return html`<table class="responsive keys"><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key id</th><th scope="col">Status</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col">Expires</th></tr></thead>
<tbody>${keys.map(
    (key) =>
      html`<tr data-key-id="${key.id}"><th scope="row" data-label="Name"><a href="/keys/${encodeURIComponent(key.id)}">${key.name}</a></th><td data-label="Key id"><code>${key.key}</code></td><td data-label="Status">${keyStatus(key)}</td><td data-label="Scopes">${scopeList(key.scopes)}</td><td data-label="Last used">${key.lastUsedAt ? formatTime(key.lastUsedAt) : 'never'}</td><td data-label="Expires">${expiryText(key)}</td></tr>`,
  )}</tbody></table>`;
}

function keyLists(keys: ApiKeyView[]): SafeHtml {
  const live = keys.filter((key) => !key.revokedAt);
  const revoked = keys.filter((key) => key.revokedAt);
  const current =
    live.length === 0
      ? html`<p>You have no active API keys${revoked.length > 0 ? ' (only revoked ones, below)' : ' yet'}. Create one for each application that calls the API.</p>`
      : keyTable(live, 'Your active keys');
  // Revoked keys only explain history: folded away under their own heading, open on demand (no script needed).
  const folded =
    revoked.length === 0
      ? ''
      : html`<details class="revoked-keys"><summary><h2>Revoked keys (${revoked.length})</h2></summary>${keyTable(revoked, 'Your revoked keys')}</details>`;
  return html`${exposureNotice(keys)}<section aria-labelledby="active-keys"><h2 id="active-keys">Active keys (${live.length})</h2>${current}</section>${folded}
<p class="hint">Changes to scopes and limits, revocation and expiry apply to a key's very next request. Last use is recorded within about 10 seconds.</p>`;
}

function listingBody(listing: KeyListing): SafeHtml {
  switch (listing.kind) {
    case 'subscription-needed':
      return html`<p class="warning" id="subscription-needed">${SUBSCRIPTION_NEEDED}</p><p><a href="/subscriptions">See the plans</a></p>`;
    case 'unavailable':
      return html`<p class="error" role="alert">${listing.message}</p>`;
    case 'keys':
      return html`<p class="actions"><a class="button" href="/keys/new">Create key</a></p>${keyLists(listing.keys)}`;
  }
}

/** The list first; creating a key is its own page. A secret left by a form is shown above everything. */
export function keysPage(chrome: Chrome, data: KeysPageData): SafeHtml {
  return layout(
    'API keys',
    chrome,
    html`${secretPanels(data.created, data.rolled ?? null, data.publicGatewayUrl)}${listingBody(data.listing)}`,
  );
}
