import { formatRateLimits, type ApiKeyUsageResponseBody, type ApiKeyView } from '@acs/contracts';
import { ASSIGNABLE_SCOPES } from '../account/scopes.js';
import { SUBSCRIPTION_NEEDED } from '../gateway-client/user-messages.js';
import { firstInvalid, textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';
import { canRoll, expiryField, keyStatus, lifecycleFacts, rolledPanel, type RolledKey } from './key-lifecycle.js';
import { CARD_HINT, describeRateLimits, rateLimitsField } from './rate-limits.js';
import { usageChart } from './usage-chart.js';

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
  /** Days until expiry as chosen in the form; '' never; 'date': expiresOn. */
  expiresInDays?: string;
  /** The date field as sent (YYYY-MM-DD, or ''). */
  expiresOn?: string;
  /** The limits as typed ("20/1s,50000/1d"; '' the deployment default). */
  rateLimits?: string;
}

/** A key's limits form as it was sent, after an error: the error is shown on that card only. */
export interface LimitsDraft {
  keyId: string;
  text: string;
}

/** The user's keys, or why they cannot be listed right now. */
export type KeyListing = { kind: 'keys'; keys: ApiKeyView[] } | { kind: 'subscription-needed' } | { kind: 'unavailable'; message: string };

export interface KeysPageData {
  listing: KeyListing;
  /** Just created: the only page view that ever shows its secret. */
  created: CreatedKey | null;
  /** The create form as it was sent, after an error. */
  draft?: KeyDraft;
  /** The gateway's public address, for the ready-to-paste snippet. */
  publicGatewayUrl?: string;
  /** Just rolled: the only page view that shows the new secret. */
  rolled?: RolledKey | null;
  /** Each key's last 30 days by id; a key missing here gets no chart (its usage could not be read). */
  usage?: ReadonlyMap<string, ApiKeyUsageResponseBody>;
  /** A key's limits form that was refused. */
  limitsDraft?: LimitsDraft;
}

/** A label per box, the box first and the words beside it (not stretched across the form). */
function scopeBoxes(idPrefix: string, checked: readonly string[], withHints: boolean): SafeHtml {
  return html`${ASSIGNABLE_SCOPES.map((scope) => {
    const id = `${idPrefix}-${scope.name.replace(':', '-')}`;
    return html`<div class="check"><input type="checkbox" id="${id}" name="scopes" value="${scope.name}"${checked.includes(scope.name) ? html` checked` : ''}><label for="${id}"><code>${scope.name}</code>${withHints ? html` <span class="hint">${scope.grants}</span>` : ''}</label></div>`;
  })}`;
}

/** A value with a copy button (shown by the page's one script; without script the text is simply selectable). */
function copyable(id: string, value: string, what: string, className = ''): SafeHtml {
  return html`<code id="${id}"${className ? html` class="${className}"` : ''}>${value}</code>
  <button type="button" class="copy" data-copy="${id}" hidden>Copy ${what}</button><span class="copy-status" id="${id}-status" role="status"></span>`;
}

/** Single quotes in a shell line; our keys and secrets are base64url, so this is belt and braces. */
const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

function createdPanel(created: CreatedKey, publicGatewayUrl: string | undefined): SafeHtml {
  const base = (publicGatewayUrl ?? '').replace(/\/+$/, '');
  const headers = `X-Api-Key: ${created.key}\nX-Api-Secret: ${created.secret}`;
  const curl = `curl -H ${shellQuote(`X-Api-Key: ${created.key}`)} \\\n     -H ${shellQuote(`X-Api-Secret: ${created.secret}`)} \\\n     ${base}/api/SubscriptionPlans`;
  return html`<section class="secret" aria-labelledby="created-title">
  <h2 id="created-title">Key “${created.name}” created</h2>
  <p class="warning"><strong>Copy the secret now: it is shown only this once.</strong> It is not stored anywhere we can read it back, and this page will not show it again. If you lose it, revoke the key and create a new one.</p>
  <dl class="facts">
    <dt>X-Api-Key</dt><dd>${copyable('created-key', created.key, 'key')}</dd>
    <dt>X-Api-Secret</dt><dd>${copyable('created-secret', created.secret, 'secret', 'secret-value')}</dd>
    <dt>Scopes</dt><dd>${created.scopes || '(none)'}</dd>
    <dt>Environment</dt><dd>${created.environment}</dd>
  </dl>
  <h3>Use it</h3>
  <p>Send both headers with every request:</p>
  <pre><code id="created-headers">${headers}</code></pre>
  <p><button type="button" class="copy" data-copy="created-headers" hidden>Copy headers</button><span class="copy-status" id="created-headers-status" role="status"></span></p>
  <p>For example (the plans need <code>read:devices</code>; every endpoint of the key's scopes is called the same way):</p>
  <pre><code id="created-curl">${curl}</code></pre>
  <p><button type="button" class="copy" data-copy="created-curl" hidden>Copy curl command</button><span class="copy-status" id="created-curl-status" role="status"></span></p>
</section>`;
}

function createForm(chrome: Chrome, draft: KeyDraft | undefined, limitsDraft: LimitsDraft | undefined): SafeHtml {
  const environment = draft?.environment ?? 'live';
  // A card's refused limits form owns the rateLimits error; the create form's fields stay clean then.
  const errors = limitsDraft ? undefined : chrome.fieldErrors;
  const focused = firstInvalid(['name', 'scopes', 'environment', 'expiresAt', 'rateLimits'], errors);
  const scopesError = errors?.scopes;
  return html`<section>
  <h2>Create a key</h2>
  <form method="post" action="/keys" class="stacked">
    ${csrfField(chrome.csrfToken)}
    ${textField({ label: 'Name', name: 'name', value: draft?.name ?? '', attributes: html`required maxlength="100" placeholder="my app"` }, errors, focused)}
    <fieldset${scopesError ? html` class="invalid" aria-describedby="scopes-error"` : ''}><legend>Scopes</legend>
      ${scopesError ? html`<p class="field-error" id="scopes-error">${scopesError}</p>` : ''}
      ${scopeBoxes('new-scope', draft?.scopes ?? [], true)}
    </fieldset>
    <div class="field${errors?.environment ? ' invalid' : ''}">
      <label for="field-environment">Environment</label>
      ${errors?.environment ? html`<p class="field-error" id="field-environment-error">${errors.environment}</p>` : ''}
      <select id="field-environment" name="environment"${errors?.environment ? html` aria-invalid="true" aria-describedby="field-environment-error"` : ''}${focused === 'environment' ? html` autofocus` : ''}>
        <option value="live"${environment === 'live' ? html` selected` : ''}>live</option>
        <option value="test"${environment === 'test' ? html` selected` : ''}>test</option>
      </select>
    </div>
    ${expiryField(draft?.expiresInDays ?? '', draft?.expiresOn ?? '', errors?.expiresAt)}
    ${rateLimitsField('field-rateLimits', draft?.rateLimits ?? '', errors?.rateLimits, focused === 'rateLimits')}
    <button type="submit">Create key</button>
  </form>
</section>`;
}

/**
 * One key as a card (a list item), not a table row: it fits a phone, and there is room for what
 * a key may gain later (expiry, a second secret, usage) as further facts and actions.
 */
/** Change a key's own limits; empty: back to the deployment default. */
function limitsForm(chrome: Chrome, key: ApiKeyView, limitsDraft: LimitsDraft | undefined): SafeHtml {
  const id = encodeURIComponent(key.id);
  const mine = limitsDraft?.keyId === key.id;
  const error = mine ? chrome.fieldErrors?.rateLimits : undefined;
  const value = mine ? limitsDraft.text : key.rateLimits ? formatRateLimits(key.rateLimits) : '';
  return html`<form method="post" action="/keys/${id}/limits" class="limits stacked">${csrfField(chrome.csrfToken)}
      ${rateLimitsField(`key-${key.id}-limits`, value, error, error !== undefined, CARD_HINT)}
      <button type="submit" aria-label="Save the rate limits of key “${key.name}”">Save limits</button>
    </form>`;
}

function keyCard(
  chrome: Chrome,
  key: ApiKeyView,
  usage: ApiKeyUsageResponseBody | undefined,
  limitsDraft: LimitsDraft | undefined,
): SafeHtml {
  const id = encodeURIComponent(key.id);
  const scopes = key.scopes.split(' ').filter((s) => s.length > 0);
  const status = keyStatus(key);
  const roll = canRoll(key)
    ? html`<a class="button secondary" href="/keys/${id}/roll" aria-label="Roll the secret of key “${key.name}”">Roll secret…</a> `
    : '';
  const actions = key.revokedAt
    ? html`<dt>Scopes</dt><dd>${key.scopes || '(none)'}</dd><dt>Rate limits</dt><dd class="rate-limits">${describeRateLimits(key.rateLimits)}</dd></dl>`
    : html`<dt>Rate limits</dt><dd class="rate-limits">${describeRateLimits(key.rateLimits)}</dd></dl>
    <form method="post" action="/keys/${id}/scopes" class="scopes">${csrfField(chrome.csrfToken)}
      <fieldset><legend>Scopes</legend>${scopeBoxes(`key-${key.id}`, scopes, false)}</fieldset>
      <button type="submit" aria-label="Save the scopes of key “${key.name}”">Save scopes</button>
    </form>
    ${limitsForm(chrome, key, limitsDraft)}
    <p class="card-actions">${roll}<a class="button danger" href="/keys/${id}/revoke" aria-label="Revoke key “${key.name}”">Revoke…</a></p>`;
  return html`<li class="card key ${key.revokedAt ? 'revoked' : 'active'}" data-key-id="${key.id}">
    <h3>${key.name}</h3>
    <dl class="facts">
      <dt>Key</dt><dd><code>${key.key}</code></dd>
      <dt>Status</dt><dd>${status}</dd>
      <dt>Environment</dt><dd>${key.environment}</dd>
      <dt>Created</dt><dd>${formatTime(key.createdAt)}</dd>
      <dt>Last used</dt><dd>${key.lastUsedAt ? formatTime(key.lastUsedAt) : 'never'}</dd>
      ${lifecycleFacts(key)}
    ${actions}
    ${usage ? usageChart(key.id, key.name, usage) : ''}
  </li>`;
}

function keyList(
  chrome: Chrome,
  keys: ApiKeyView[],
  usage: ReadonlyMap<string, ApiKeyUsageResponseBody> | undefined,
  limitsDraft: LimitsDraft | undefined,
): SafeHtml {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  return html`<ul class="cards keys">${keys.map((key) => keyCard(chrome, key, usage?.get(key.id), limitsDraft))}</ul>
<p class="hint">Secrets are never shown again after creation or a roll. Scope and limit changes, revocations and expiry apply to the key's very next request. Last use and the request counts are recorded within about 10 seconds.</p>`;
}

function listingBody(chrome: Chrome, data: KeysPageData): SafeHtml {
  switch (data.listing.kind) {
    case 'subscription-needed':
      return html`<p class="warning" id="subscription-needed">${SUBSCRIPTION_NEEDED}</p><p><a href="/subscriptions">See the plans</a></p>`;
    case 'unavailable':
      return html`<p class="error" role="alert">${data.listing.message}</p>`;
    case 'keys':
      return html`${createForm(chrome, data.draft, data.limitsDraft)}<section><h2>Your keys</h2>${keyList(chrome, data.listing.keys, data.usage, data.limitsDraft)}</section>`;
  }
}

/** A just-created key comes first and whatever the listing did: its secret exists nowhere else. */
export function keysPage(chrome: Chrome, data: KeysPageData): SafeHtml {
  return layout(
    'API keys',
    chrome,
    html`${data.created ? createdPanel(data.created, data.publicGatewayUrl) : ''}${data.rolled ? rolledPanel(data.rolled) : ''}${listingBody(chrome, data)}`,
  );
}

/** Asked before anything is revoked: what will happen, one button to do it, one way back. */
export function revokeKeyPage(chrome: Chrome, key: ApiKeyView): SafeHtml {
  const id = encodeURIComponent(key.id);
  return layout(
    'Revoke this key?',
    chrome,
    html`<section class="confirm">
  <p>Revoke key <strong>“${key.name}”</strong> (<code>${key.key}</code>)? Apps using it stop working at once: its very next request is refused. This cannot be undone; a new key gets a new secret.</p>
  <form method="post" action="/keys/${id}/revoke" class="confirm-actions">${csrfField(chrome.csrfToken)}
    <button type="submit" class="danger-solid">Revoke key “${key.name}”</button>
    <a class="button secondary" href="/keys">Keep the key</a>
  </form>
</section>`,
  );
}
