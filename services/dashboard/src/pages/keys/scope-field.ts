import { ASSIGNABLE_SCOPES } from '../../account/scopes.js';
import { html, type SafeHtml } from '../html.js';

/**
 * The scopes as a group of checkboxes, the box first and the words beside it; after a refusal
 * its one message sits inside the group, which is marked invalid and described by it.
 */
export function scopeField(checked: readonly string[], error: string | undefined): SafeHtml {
  return html`<fieldset id="field-scopes"${error ? html` class="invalid" aria-describedby="scopes-error"` : ''}><legend>Scopes</legend>
      <p class="hint">What the key may call. A key without scopes can call nothing.</p>
      ${error ? html`<p class="field-error" id="scopes-error">${error}</p>` : ''}
      ${ASSIGNABLE_SCOPES.map((scope) => {
        const id = `scope-${scope.name.replace(':', '-')}`;
        return html`<div class="check"><input type="checkbox" id="${id}" name="scopes" value="${scope.name}"${checked.includes(scope.name) ? html` checked` : ''}><label for="${id}"><code>${scope.name}</code> <span class="hint">${scope.grants}</span></label></div>`;
      })}
    </fieldset>`;
}
