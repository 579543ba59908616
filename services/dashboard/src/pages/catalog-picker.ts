import type { CatalogEntry } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';

/** What the search found, or why there is nothing to choose from. */
export type CatalogResults =
  | { kind: 'idle' }
  | { kind: 'found'; q: string; entries: CatalogEntry[]; total: number }
  | { kind: 'unavailable' };

export interface PickerState {
  q: string;
  /** The chosen entry id as sent ('' none). */
  chosen: string;
  results: CatalogResults;
  error?: string;
}

function statusText(results: CatalogResults): string {
  switch (results.kind) {
    case 'idle':
      return 'Type part of the brand or model and search; then choose the entry.';
    case 'unavailable':
      return 'The catalog cannot be searched right now. You can register the device without an entry.';
    case 'found':
      if (results.total === 0) return `No catalog entry matches “${results.q}”.`;
      return results.total > results.entries.length
        ? `${results.total} entries match “${results.q}”; the first ${results.entries.length} are shown. Type more to narrow it down.`
        : `${results.total} ${results.total === 1 ? 'entry matches' : 'entries match'} “${results.q}”.`;
  }
}

const radio = (value: string, label: SafeHtml, checked: boolean): SafeHtml => {
  const id = value === '' ? 'entry-none' : `entry-${value}`;
  return html`<div class="check"><input type="radio" id="${id}" name="catalogEntryId" value="${value}"${checked ? html` checked` : ''}><label for="${id}">${label}</label></div>`;
};

/** The choices: none, the entry chosen before (when the new search does not list it), then what was found. */
function choices(state: PickerState): SafeHtml {
  const entries = state.results.kind === 'found' ? state.results.entries : [];
  const listed = entries.some((entry) => String(entry.id) === state.chosen);
  return html`${radio('', html`No catalog entry`, state.chosen === '')}${
    state.chosen !== '' && !listed ? radio(state.chosen, html`The entry chosen before (id ${state.chosen})`, true) : ''
  }${entries.map((entry) =>
    radio(
      String(entry.id),
      html`${entry.brand} ${entry.model} <span class="hint">${entry.type}, ${entry.releaseYear}</span>`,
      String(entry.id) === state.chosen,
    ),
  )}`;
}

/** The part the page's script replaces as the user types (also the whole answer of /devices/catalog-search). */
export const pickerResults = (state: PickerState): SafeHtml =>
  html`<p id="catalog-status" class="hint" role="status">${statusText(state.results)}</p>
<div id="catalog-results" class="picker-results">${choices(state)}</div>`;

/**
 * A catalog search inside the registration form. Without script, "Search" sends the form back
 * (nothing is registered) and the page comes back with the results and everything typed; with
 * script, results follow the typing.
 */
export function catalogPicker(state: PickerState): SafeHtml {
  return html`<fieldset id="field-catalogEntryId" class="picker${state.error ? ' invalid' : ''}"${state.error ? html` aria-describedby="catalog-error"` : ''}><legend>Catalog entry (optional)</legend>
  ${state.error ? html`<p class="field-error" id="catalog-error">${state.error}</p>` : ''}
  <div class="picker-search">
    <div class="field"><label for="field-catalog-q">Search the catalog</label>
    <input type="search" id="field-catalog-q" name="q" value="${state.q}" maxlength="80" autocomplete="off" spellcheck="false" aria-controls="catalog-results" aria-describedby="catalog-status"></div>
    <button type="submit" name="action" value="search" class="secondary" formnovalidate>Search</button>
  </div>
  ${pickerResults(state)}
</fieldset>`;
}
