import type { ApiKeyView } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';

const DAY_MS = 86_400_000;
/** A key this close to its expiry gets a warning on its card. */
const EXPIRY_WARNING_DAYS = 7;

/** The choice that takes the expiry from the date field instead of a fixed lifetime. */
const ON_DATE = 'date';

/** The lifetimes offered when creating a key (days; '' never expires; ON_DATE: the date field). */
const EXPIRY_CHOICES = [
  { value: '', label: 'never' },
  { value: '7', label: 'in 7 days' },
  { value: '30', label: 'in 30 days' },
  { value: '90', label: 'in 90 days' },
  { value: '365', label: 'in 1 year' },
  { value: ON_DATE, label: 'on the date below' },
] as const;

/** A calendar date as a date input sends it (RFC 3339 full-date). */
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant a key chosen to expire on `date` stops: the end of that day in UTC (null: not a real date). */
function endOfUtcDay(date: string): number | null {
  const parts = FULL_DATE.exec(date);
  if (!parts) return null;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const start = Date.UTC(year, month - 1, day);
  const back = new Date(start);
  // Date.UTC rolls 2027-02-30 over to March: a date that does not come back unchanged does not exist.
  if (year < 1970 || back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return start + DAY_MS;
}

export type FormExpiry = { ok: true; expiresAt: string | null } | { ok: false; message: string };

/**
 * The create form's expiry as an instant: a fixed lifetime from now, or the end (UTC) of the date
 * field's day, so a key set to expire "on 2027-01-31" works through that whole day. A date typed
 * while a fixed lifetime is chosen is refused rather than silently ignored.
 */
export function expiryFromForm(choice: string, date: string, now = Date.now()): FormExpiry {
  if (!EXPIRY_CHOICES.some((offered) => offered.value === choice)) return { ok: false, message: 'Choose when the key expires.' };
  if (choice !== ON_DATE) {
    if (date !== '') return { ok: false, message: 'To use the date, choose “on the date below” (or clear the date).' };
    return { ok: true, expiresAt: choice === '' ? null : new Date(now + Number(choice) * DAY_MS).toISOString() };
  }
  if (date === '') return { ok: false, message: 'Choose the date the key expires on.' };
  const end = endOfUtcDay(date);
  if (end === null) return { ok: false, message: 'Enter the date as year-month-day, e.g. 2027-01-31.' };
  if (end <= now) return { ok: false, message: 'Choose today or a later date.' };
  return { ok: true, expiresAt: new Date(end).toISOString() };
}

/** The grace periods offered when rolling a secret (seconds). */
export const GRACE_CHOICES = [
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: '604800', label: '7 days' },
  { value: '0', label: 'none: stop the old secret now (it leaked)' },
] as const;

/**
 * The expiry: a lifetime, or "on the date below" with a date field. Both are always shown (the
 * dashboard works without script); the date field's `min` is today in UTC, as the server judges.
 */
export function expiryField(selected: string, date: string, error: string | undefined, now = Date.now()): SafeHtml {
  const invalid = error ? html` aria-invalid="true"` : '';
  return html`<div class="field${error ? ' invalid' : ''}">
      <label for="field-expires">Expires</label>
      ${error ? html`<p class="field-error" id="field-expires-error">${error}</p>` : ''}
      <select id="field-expires" name="expiresInDays"${error ? html` aria-invalid="true" aria-describedby="field-expires-error"` : ''}>
        ${EXPIRY_CHOICES.map((choice) => html`<option value="${choice.value}"${choice.value === selected ? html` selected` : ''}>${choice.label}</option>`)}
      </select>
    </div>
    <div class="field${error ? ' invalid' : ''}">
      <label for="field-expires-on">Expiry date</label>
      <p class="hint" id="field-expires-on-hint">With “on the date below”: the key works through that day (UTC).</p>
      <input id="field-expires-on" type="date" name="expiresOn" value="${date}" min="${new Date(now).toISOString().slice(0, 10)}" aria-describedby="field-expires-on-hint${error ? ' field-expires-error' : ''}"${invalid}>
    </div>`;
}

const isExpired = (key: ApiKeyView, now: number): boolean => key.expiresAt !== null && Date.parse(key.expiresAt) <= now;

/** "active", "expired …" or "revoked …": what the key does on its next request. */
export function keyStatus(key: ApiKeyView, now = Date.now()): SafeHtml {
  if (key.revokedAt) return html`revoked ${formatTime(key.revokedAt)}`;
  if (isExpired(key, now)) return html`<span class="expired">expired ${formatTime(key.expiresAt)}</span>`;
  return html`active`;
}

/** The card's expiry and grace facts; a warning when the key expires within EXPIRY_WARNING_DAYS. */
export function lifecycleFacts(key: ApiKeyView, now = Date.now()): SafeHtml {
  let expiry: SafeHtml = html`never`;
  if (key.expiresAt) {
    const left = Date.parse(key.expiresAt) - now;
    const days = Math.ceil(left / DAY_MS);
    expiry =
      left <= 0 || key.revokedAt
        ? html`${formatTime(key.expiresAt)}`
        : left <= EXPIRY_WARNING_DAYS * DAY_MS
          ? html`<span class="expiry-warning">${formatTime(key.expiresAt)}: expires ${days <= 1 ? 'within a day' : `in ${days} days`}</span>`
          : html`${formatTime(key.expiresAt)}`;
  }
  const grace = key.graceEndsAt && !key.revokedAt ? html`<dt>Old secret</dt><dd>works until ${formatTime(key.graceEndsAt)}</dd>` : '';
  return html`<dt>Expires</dt><dd>${expiry}</dd>${grace}`;
}

export const canRoll = (key: ApiKeyView, now = Date.now()): boolean => !key.revokedAt && !isExpired(key, now);

/** Asked before a secret is rolled: what will happen, how long the old secret keeps working. */
export function rollKeyPage(chrome: Chrome, key: ApiKeyView): SafeHtml {
  const id = encodeURIComponent(key.id);
  return layout(
    'Roll the secret of this key?',
    chrome,
    html`<section class="confirm">
  <p>Give key <strong>“${key.name}”</strong> (<code>${key.key}</code>) a new secret? The key itself stays the same. The new secret is shown once, on the next page. Until the grace period ends, apps may use either secret; then only the new one works.</p>
  <form method="post" action="/keys/${id}/roll" class="stacked">${csrfField(chrome.csrfToken)}
    <fieldset><legend>The old secret keeps working for</legend>
      ${GRACE_CHOICES.map((choice, i) => html`<div class="check"><input type="radio" id="grace-${choice.value}" name="graceSeconds" value="${choice.value}"${i === 1 ? html` checked` : ''}><label for="grace-${choice.value}">${choice.label}</label></div>`)}
    </fieldset>
    <p class="confirm-actions">
      <button type="submit">Roll the secret of “${key.name}”</button>
      <a class="button secondary" href="/keys">Keep the current secret</a>
    </p>
  </form>
</section>`,
  );
}

export interface RolledKey {
  name: string;
  key: string;
  secret: string;
  /** ISO instant; null: the old secret stopped at once. */
  graceEndsAt: string | null;
}

/** The one page view that shows a rolled key's new secret. */
export function rolledPanel(rolled: RolledKey): SafeHtml {
  return html`<section class="secret" aria-labelledby="rolled-title">
  <h2 id="rolled-title">New secret for “${rolled.name}”</h2>
  <p class="warning"><strong>Copy the new secret now: it is shown only this once.</strong></p>
  <dl class="facts">
    <dt>X-Api-Key</dt><dd><code id="rolled-key">${rolled.key}</code> (unchanged)</dd>
    <dt>X-Api-Secret</dt><dd><code id="rolled-secret" class="secret-value">${rolled.secret}</code></dd>
    <dt>Old secret</dt><dd id="rolled-old">${rolled.graceEndsAt ? `works until ${formatTime(rolled.graceEndsAt)}, then stops` : 'stopped working at once'}</dd>
  </dl>
</section>`;
}
