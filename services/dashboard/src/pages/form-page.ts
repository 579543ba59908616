import { firstInvalid } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout, type Chrome } from './layout.js';

/** A page that is one POST form: sign in, register, create a key, edit a key. */
export interface FormPageSpec {
  title: string;
  /** Where the form posts (already encoded). */
  action: string;
  /** The form's field names in order: after a failed post the first one with an error gets the focus. */
  fieldOrder: readonly string[];
  /** The fields and buttons, told the form's errors and which field to focus. */
  fields(errors: Record<string, string> | undefined, focused: string | null): SafeHtml;
  /** What follows the form on the page (a link, a note). */
  after?: SafeHtml;
}

/** The page's layout around one stacked form carrying the CSRF token, the errors of the last post beside their fields. */
export function formPage(chrome: Chrome, spec: FormPageSpec): SafeHtml {
  const errors = chrome.fieldErrors;
  return layout(
    spec.title,
    chrome,
    html`<form method="post" action="${spec.action}" class="stacked">
  ${csrfField(chrome.csrfToken)}
  ${spec.fields(errors, firstInvalid(spec.fieldOrder, errors))}
</form>
${spec.after ?? ''}`,
  );
}

/** Asked before a change that cannot be taken back: what will happen, then the form that does it with its way back. */
export function confirmPage(chrome: Chrome, title: string, question: SafeHtml, form: SafeHtml): SafeHtml {
  return layout(
    title,
    chrome,
    html`<section class="confirm">
  ${question}
  ${form}
</section>`,
  );
}
