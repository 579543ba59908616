import { textField } from '../form-fields.js';
import { formPage } from '../form-page.js';
import { html, type SafeHtml } from '../html.js';
import { defaultExpiryChoice, expiryField } from '../key-lifecycle.js';
import type { Chrome } from '../layout.js';
import { rateLimitsField } from '../rate-limits.js';
import { ipAllowListField } from '../ip-allow-list.js';
import { scopeField } from './scope-field.js';

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
  /** The allow-list as typed (one range per line; '' any address). */
  ipAllowList?: string;
}

const FIELDS = ['name', 'scopes', 'environment', 'expiresAt', 'rateLimits', 'ipAllowList'] as const;

function environmentField(selected: string, error: string | undefined, focused: boolean): SafeHtml {
  return html`<div class="field${error ? ' invalid' : ''}">
      <label for="field-environment">Environment</label>
      <p class="hint" id="field-environment-hint">The word in the key (<code>live</code> or <code>test</code>), for telling keys apart; both reach the same data.</p>
      ${error ? html`<p class="field-error" id="field-environment-error">${error}</p>` : ''}
      <select id="field-environment" name="environment" aria-describedby="field-environment-hint${error ? ' field-environment-error' : ''}"${error ? html` aria-invalid="true"` : ''}${focused ? html` autofocus` : ''}>
        <option value="live"${selected === 'live' ? html` selected` : ''}>live</option>
        <option value="test"${selected === 'test' ? html` selected` : ''}>test</option>
      </select>
    </div>`;
}

/**
 * Creating a key, on a page of its own: the list stays a list. `maxLifetimeDays` is the deployment's
 * KEY_MAX_LIFETIME_DAYS (null: none), so the form never offers what the keys service would refuse.
 */
export function createKeyPage(chrome: Chrome, draft: KeyDraft | undefined, maxLifetimeDays: number | null): SafeHtml {
  return formPage(chrome, {
    title: 'Create an API key',
    action: '/keys',
    fieldOrder: FIELDS,
    fields: (
      errors,
      focused,
    ) => html`${textField({ label: 'Name', name: 'name', value: draft?.name ?? '', attributes: html`required maxlength="100" autocomplete="off"`, hint: 'For you: which application uses it.' }, errors, focused)}
  ${scopeField(draft?.scopes ?? [], errors?.scopes)}
  ${environmentField(draft?.environment ?? 'live', errors?.environment, focused === 'environment')}
  ${expiryField(draft?.expiresInDays ?? defaultExpiryChoice(maxLifetimeDays), draft?.expiresOn ?? '', errors?.expiresAt, maxLifetimeDays)}
  ${rateLimitsField('field-rateLimits', draft?.rateLimits ?? '', errors?.rateLimits, focused === 'rateLimits')}
  ${ipAllowListField(draft?.ipAllowList ?? '', errors?.ipAllowList, focused === 'ipAllowList')}
  <p class="confirm-actions"><button type="submit">Create key</button> <a class="button secondary" href="/keys">Back to the keys</a></p>`,
  });
}
