import { html, type SafeHtml } from './html.js';

export interface TextFieldSpec {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password';
  value?: string;
  /** Further attributes of the input (required, maxlength, autocomplete…), written by the page. */
  attributes?: SafeHtml;
  hint?: string;
}

/** The first of `names` (in the form's order) that has an error: it gets the focus. */
export const firstInvalid = (names: readonly string[], errors: Record<string, string> | undefined): string | null =>
  names.find((name) => errors?.[name] !== undefined) ?? null;

/**
 * A labelled input with its hint and, after a failed form, its error right beside it: the input is
 * `aria-invalid` and described by the message, and the first bad field of the form is focused
 * (autofocus: no script needed).
 */
export function textField(spec: TextFieldSpec, errors: Record<string, string> | undefined, focused: string | null): SafeHtml {
  const id = `field-${spec.name}`;
  const error = errors?.[spec.name];
  const described = [spec.hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter((x) => x !== null).join(' ');
  return html`<div class="field${error ? ' invalid' : ''}">
  <label for="${id}">${spec.label}</label>
  ${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ''}
  ${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}
  <input id="${id}" type="${spec.type ?? 'text'}" name="${spec.name}"${spec.type === 'password' ? '' : html` value="${spec.value ?? ''}"`}${spec.attributes ? html` ${spec.attributes}` : ''}${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}${focused === spec.name ? html` autofocus` : ''}>
</div>`;
}
