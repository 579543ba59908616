import { curlLine, exampleCallFor } from '../../account/example-call.js';
import { html, type SafeHtml } from '../html.js';
import { formatTime } from '../labels.js';

export interface CreatedKey {
  name: string;
  key: string;
  secret: string;
  scopes: string;
  environment: string;
}

export interface RolledKey {
  name: string;
  key: string;
  secret: string;
  /** ISO instant; null: the old secret stopped at once. */
  graceEndsAt: string | null;
}

/** A value with a copy button (shown by the page's script; without script the text is simply selectable). */
function copyable(id: string, value: string, what: string, className = ''): SafeHtml {
  return html`<code id="${id}"${className ? html` class="${className}"` : ''}>${value}</code>
  <button type="button" class="copy" data-copy="${id}" hidden>Copy ${what}</button><span class="copy-status" id="${id}-status" role="status"></span>`;
}

/** A block of text with its own copy button under it. */
const copyableBlock = (id: string, text: string, what: string): SafeHtml =>
  html`<pre><code id="${id}">${text}</code></pre>
  <p><button type="button" class="copy" data-copy="${id}" hidden>Copy ${what}</button><span class="copy-status" id="${id}-status" role="status"></span></p>`;

/** The curl line: a call the key's own scopes open, so the first paste answers 200, not 403. */
function tryIt(created: CreatedKey, publicGatewayUrl: string): SafeHtml {
  const call = exampleCallFor(created.scopes);
  if (!call)
    return html`<p>This key has no scope yet, so every endpoint refuses it (403). Give it a scope under “Edit”, then call the API with both headers.</p>`;
  return html`<p>Try it: this ${call.what}; <code>${call.scope}</code> allows it.</p>
  ${copyableBlock('created-curl', curlLine(call, publicGatewayUrl, created.key, created.secret), 'curl command')}`;
}

/** The one page view that ever shows a new key's secret. */
export function createdPanel(created: CreatedKey, publicGatewayUrl: string): SafeHtml {
  return html`<section class="secret" aria-labelledby="created-title">
  <h2 id="created-title">Key “${created.name}” created</h2>
  <p class="warning"><strong>Copy the secret now: it is shown only this once.</strong> We keep only a hash of it. If you lose it, roll the secret or revoke the key.</p>
  <dl class="facts">
    <dt>X-Api-Key</dt><dd>${copyable('created-key', created.key, 'key')}</dd>
    <dt>X-Api-Secret</dt><dd>${copyable('created-secret', created.secret, 'secret', 'secret-value')}</dd>
    <dt>Scopes</dt><dd>${created.scopes || '(none)'}</dd>
    <dt>Environment</dt><dd>${created.environment}</dd>
  </dl>
  ${tryIt(created, publicGatewayUrl)}
</section>`;
}

/** The one page view that shows a rolled key's new secret. */
function rolledPanel(rolled: RolledKey): SafeHtml {
  return html`<section class="secret" aria-labelledby="rolled-title">
  <h2 id="rolled-title">New secret for “${rolled.name}”</h2>
  <p class="warning"><strong>Copy the new secret now: it is shown only this once.</strong></p>
  <dl class="facts">
    <dt>X-Api-Key</dt><dd><code id="rolled-key">${rolled.key}</code> (unchanged)</dd>
    <dt>X-Api-Secret</dt><dd>${copyable('rolled-secret', rolled.secret, 'secret', 'secret-value')}</dd>
    <dt>Old secret</dt><dd id="rolled-old">${rolled.graceEndsAt ? `works until ${formatTime(rolled.graceEndsAt)}, then stops` : 'stopped working at once'}</dd>
  </dl>
</section>`;
}

/** Whatever the previous form left to show once: a created key's or a rolled key's secret. */
export const secretPanels = (created: CreatedKey | null, rolled: RolledKey | null, publicGatewayUrl: string): SafeHtml =>
  html`${created ? createdPanel(created, publicGatewayUrl) : ''}${rolled ? rolledPanel(rolled) : ''}`;
