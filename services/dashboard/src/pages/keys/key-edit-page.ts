import { formatRateLimits, type ApiKeyView } from '@acs/contracts';
import { textField } from '../form-fields.js';
import { formPage } from '../form-page.js';
import { html, type SafeHtml } from '../html.js';
import { expiryText } from '../key-lifecycle.js';
import type { Chrome } from '../layout.js';
import { CARD_HINT, rateLimitsField } from '../rate-limits.js';
import { ipAllowListField, ipAllowListText } from '../ip-allow-list.js';
import { scopeField } from './scope-field.js';

/** The edit form as it was sent, after a refusal: shown again with the message beside its field. */
export interface KeyEditDraft {
  name: string;
  scopes: string[];
  rateLimits: string;
  /** The allow-list as typed (one range per line; '' any address). */
  ipAllowList: string;
}

const FIELDS = ['name', 'scopes', 'rateLimits', 'ipAllowList'] as const;

export const editDraftOf = (key: ApiKeyView): KeyEditDraft => ({
  name: key.name,
  scopes: key.scopes.split(' ').filter((s) => s.length > 0),
  rateLimits: key.rateLimits ? formatRateLimits(key.rateLimits) : '',
  ipAllowList: ipAllowListText(key.ipAllowList),
});

/** A key's settings: name, scopes, limits and allowed addresses in one form; the expiry is fixed at creation, and said so. */
export function editKeyPage(chrome: Chrome, key: ApiKeyView, draft: KeyEditDraft): SafeHtml {
  const id = encodeURIComponent(key.id);
  return formPage(chrome, {
    title: `Edit key “${key.name}”`,
    action: `/keys/${id}/edit`,
    fieldOrder: FIELDS,
    fields: (
      errors,
      focused,
    ) => html`${textField({ label: 'Name', name: 'name', value: draft.name, attributes: html`required maxlength="100" autocomplete="off"` }, errors, focused)}
  ${scopeField(draft.scopes, errors?.scopes)}
  ${rateLimitsField('field-rateLimits', draft.rateLimits, errors?.rateLimits, focused === 'rateLimits', CARD_HINT)}
  ${ipAllowListField(draft.ipAllowList, errors?.ipAllowList, focused === 'ipAllowList')}
  <div class="field"><span class="label">Expires</span><p>${expiryText(key)}</p><p class="hint">Set when a key is created. For another expiry, create a new key and revoke this one.</p></div>
  <p class="confirm-actions"><button type="submit">Save changes</button> <a class="button secondary" href="/keys/${id}">Cancel</a></p>`,
    after: html`<p class="hint">Saved changes apply to the key's very next request.</p>`,
  });
}
