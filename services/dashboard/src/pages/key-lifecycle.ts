import type { ApiKeyView } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';

const DAY_MS = 86_400_000;
/** A key this close to its expiry gets a warning on its card. */
const EXPIRY_WARNING_DAYS = 7;

/** The choice that takes the expiry from the date field instead of a fixed lifetime. */
const ON_DATE = 'date';

/** The lifetime a new key's form starts at when the deployment caps lifetimes (or the cap, if shorter). */
const CAPPED_DEFAULT_DAYS = 90;

interface ExpiryChoice {
  value: string;
  label: string;
}

/** A fixed lifetime of `days` (the choice's value is the number of days). */
const lifetime = (days: number, label = `in ${days} days`): ExpiryChoice => ({ value: String(days), label });

/** The fixed lifetimes offered when creating a key. */
const LIFETIMES: readonly ExpiryChoice[] = [lifetime(7), lifetime(30), lifetime(90), lifetime(365, 'in 1 year')];

/** Last in every list of choices: the expiry is the date field's. */
const ON_DATE_CHOICE: ExpiryChoice = { value: ON_DATE, label: 'on the date below' };

/** The choices without a maximum: never ('' never expires), the fixed lifetimes, a date. */
const EXPIRY_CHOICES: readonly ExpiryChoice[] = [{ value: '', label: 'never' }, ...LIFETIMES, ON_DATE_CHOICE];

/**
 * What the create form offers under the deployment's KEY_MAX_LIFETIME_DAYS (null: no maximum): with a
 * maximum, "never" and every lifetime beyond it are gone (the keys service would refuse them with 400),
 * and the maximum itself is offered when it is not one of the usual lifetimes.
 */
export function expiryChoices(maxLifetimeDays: number | null): readonly ExpiryChoice[] {
  if (maxLifetimeDays === null) return EXPIRY_CHOICES;
  const lifetimes = LIFETIMES.filter((choice) => Number(choice.value) <= maxLifetimeDays);
  if (!lifetimes.some((choice) => Number(choice.value) === maxLifetimeDays))
    lifetimes.push(lifetime(maxLifetimeDays, `in ${maxLifetimeDays} days (the longest allowed)`));
  return [...lifetimes.sort((a, b) => Number(a.value) - Number(b.value)), ON_DATE_CHOICE];
}

/** The choice a new key's form starts at: "never" without a maximum, else 90 days or the maximum if shorter. */
export const defaultExpiryChoice = (maxLifetimeDays: number | null): string =>
  maxLifetimeDays === null ? '' : String(Math.min(maxLifetimeDays, CAPPED_DEFAULT_DAYS));

/** The last date a key may be set to expire on: its whole day (UTC) must end within the maximum. */
function latestExpiryDate(maxLifetimeDays: number, now: number): string {
  return new Date(now + (maxLifetimeDays - 1) * DAY_MS).toISOString().slice(0, 10);
}

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
export function expiryFromForm(choice: string, date: string, maxLifetimeDays: number | null, now = Date.now()): FormExpiry {
  if (!expiryChoices(maxLifetimeDays).some((offered) => offered.value === choice))
    return { ok: false, message: 'Choose when the key expires.' };
  if (choice !== ON_DATE) {
    if (date !== '') return { ok: false, message: 'To use the date, choose “on the date below” (or clear the date).' };
    return { ok: true, expiresAt: choice === '' ? null : new Date(now + Number(choice) * DAY_MS).toISOString() };
  }
  if (date === '') return { ok: false, message: 'Choose the date the key expires on.' };
  const end = endOfUtcDay(date);
  if (end === null) return { ok: false, message: 'Enter the date as year-month-day, e.g. 2027-01-31.' };
  if (end <= now) return { ok: false, message: 'Choose today or a later date.' };
  if (maxLifetimeDays !== null && end > now + maxLifetimeDays * DAY_MS) {
    const latest = latestExpiryDate(maxLifetimeDays, now);
    return { ok: false, message: `Keys here expire within ${maxLifetimeDays} days: choose ${latest} or an earlier date.` };
  }
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
export function expiryField(
  selected: string,
  date: string,
  error: string | undefined,
  maxLifetimeDays: number | null,
  now = Date.now(),
): SafeHtml {
  const invalid = error ? html` aria-invalid="true"` : '';
  const latest = maxLifetimeDays === null ? '' : html` max="${latestExpiryDate(maxLifetimeDays, now)}"`;
  const limitHint = maxLifetimeDays === null ? '' : html` Keys here expire within ${String(maxLifetimeDays)} days.`;
  return html`<div class="field${error ? ' invalid' : ''}">
      <label for="field-expires">Expires</label>
      ${error ? html`<p class="field-error" id="field-expires-error">${error}</p>` : ''}
      <select id="field-expires" name="expiresInDays"${error ? html` aria-invalid="true" aria-describedby="field-expires-error"` : ''}>
        ${expiryChoices(maxLifetimeDays).map((choice) => html`<option value="${choice.value}"${choice.value === selected ? html` selected` : ''}>${choice.label}</option>`)}
      </select>
    </div>
    <div class="field${error ? ' invalid' : ''}">
      <label for="field-expires-on">Expiry date</label>
      <p class="hint" id="field-expires-on-hint">With “on the date below”: the key works through that day (UTC).${limitHint}</p>
      <input id="field-expires-on" type="date" name="expiresOn" value="${date}" min="${new Date(now).toISOString().slice(0, 10)}"${latest} aria-describedby="field-expires-on-hint${error ? ' field-expires-error' : ''}"${invalid}>
    </div>`;
}

const isExpired = (key: ApiKeyView, now: number): boolean => key.expiresAt !== null && Date.parse(key.expiresAt) <= now;

/** "active", "expired …", "revoked …" or, loudest, "exposed …": what the key does on its next request. */
export function keyStatus(key: ApiKeyView, now = Date.now()): SafeHtml {
  if (key.exposedAt) return html`<span class="exposed">exposed ${formatTime(key.exposedAt)}: revoked</span>`;
  if (key.revokedAt) return html`revoked ${formatTime(key.revokedAt)}`;
  if (isExpired(key, now)) return html`<span class="expired">expired ${formatTime(key.expiresAt)}</span>`;
  return html`active`;
}

/** When the key stops: a date, "never", or a highlighted warning when that is within EXPIRY_WARNING_DAYS. */
export function expiryText(key: ApiKeyView, now = Date.now()): SafeHtml {
  if (!key.expiresAt) return html`never`;
  const left = Date.parse(key.expiresAt) - now;
  const days = Math.ceil(left / DAY_MS);
  if (left <= 0 || key.revokedAt || left > EXPIRY_WARNING_DAYS * DAY_MS) return html`${formatTime(key.expiresAt)}`;
  return html`<span class="expiry-warning">${formatTime(key.expiresAt)}: expires ${days <= 1 ? 'within a day' : `in ${days} days`}</span>`;
}

/** The key page's expiry and grace facts. */
export function lifecycleFacts(key: ApiKeyView, now = Date.now()): SafeHtml {
  const grace = key.graceEndsAt && !key.revokedAt ? html`<dt>Old secret</dt><dd>works until ${formatTime(key.graceEndsAt)}</dd>` : '';
  return html`<dt>Expires</dt><dd>${expiryText(key, now)}</dd>${grace}`;
}

export const canRoll = (key: ApiKeyView, now = Date.now()): boolean => !key.revokedAt && !isExpired(key, now);

/**
 * Why an exposed key stopped (issue 31): a leak report named its secret. Said on the key's page and above the
 * list, so the owner replaces it in their application and removes the secret from where it was published.
 */
export function exposureNotice(keys: readonly ApiKeyView[]): SafeHtml {
  const exposed = keys.filter((key) => key.exposedAt !== null);
  if (exposed.length === 0) return html``;
  const which = exposed.length === 1 ? html`The key “${exposed[0]!.name}” was` : html`${exposed.length} keys were`;
  return html`<p class="exposed-notice" role="alert"><strong>${which} revoked because its secret was found exposed</strong> (a secret-scanning report, or our operators, found it published). Create a new key for the application that used it, and remove the old secret from wherever it was published.</p>`;
}
