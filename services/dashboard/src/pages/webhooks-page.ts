import { WEBHOOK_EVENT_TYPES, type WebhookDeliveriesResponseBody, type WebhookView } from '@acs/contracts';
import { firstInvalid, textField } from './form-fields.js';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { csrfField, layout, type Chrome } from './layout.js';

/** A signing secret left by the form before (new endpoint or rotation): shown this once. */
export interface ShownWebhookSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

/** What the add form was sent with, kept after a refusal. */
export interface WebhookDraft {
  url: string;
  events: string[];
  description: string;
}

const EMPTY_DRAFT: WebhookDraft = { url: '', events: [], description: '' };

/** Endpoints disabled because their deliveries kept failing (not paused by their owner): told at the top of the page. */
const failedEndpoints = (endpoints: WebhookView[]): WebhookView[] =>
  endpoints.filter((endpoint) => !endpoint.enabled && endpoint.disabledReason !== 'owner');

function banner(endpoints: WebhookView[]): SafeHtml {
  const failed = failedEndpoints(endpoints);
  if (failed.length === 0) return html``;
  return html`<div class="banner error" role="alert">
  <h2>${failed.length === 1 ? 'A webhook endpoint was disabled' : `${failed.length} webhook endpoints were disabled`}</h2>
  <ul>${failed.map((endpoint) => html`<li><a href="/webhooks/${endpoint.id}">${endpoint.url}</a>: ${endpoint.disabledReason ?? ''} (${formatTime(endpoint.disabledAt)})</li>`)}</ul>
</div>`;
}

function secretPanel(shown: ShownWebhookSecret | null): SafeHtml {
  if (!shown) return html``;
  return html`<section class="secret-panel" aria-labelledby="webhook-secret-title">
  <h2 id="webhook-secret-title">${shown.rotated ? 'The new signing secret' : 'The signing secret'} of ${shown.url}</h2>
  <p>Copy it now: it is shown only this once. Verify each delivery with it using any Standard Webhooks library.${shown.rotated ? ' The previous secret keeps signing for 24 hours, so receivers can switch without missing a delivery.' : ''}</p>
  <code id="webhook-secret">${shown.secret}</code>
  <button type="button" class="copy" data-copy="webhook-secret" hidden>Copy the secret</button><span class="copy-status" id="webhook-secret-status" role="status"></span>
</section>`;
}

const statusOf = (endpoint: WebhookView): string =>
  endpoint.enabled ? 'Enabled' : endpoint.disabledReason === 'owner' ? 'Paused' : 'Disabled after failures';

/** One endpoint: where, what, its state, and the buttons that change it. */
function endpointRow(chrome: Chrome, endpoint: WebhookView): SafeHtml {
  const action = (path: string, label: string, aria: string) =>
    html`<form method="post" action="/webhooks/${endpoint.id}/${path}" class="inline">${csrfField(chrome.csrfToken)}<button type="submit" aria-label="${aria} ${endpoint.url}">${label}</button></form>`;
  return html`<tr>
  <td data-label="URL"><a href="/webhooks/${endpoint.id}">${endpoint.url}</a>${endpoint.description ? html`<br><span class="hint">${endpoint.description}</span>` : ''}</td>
  <td data-label="Events">${endpoint.events.join(', ')}</td>
  <td data-label="Status">${statusOf(endpoint)}</td>
  <td data-label="">${endpoint.enabled ? action('disable', 'Pause', 'Pause') : action('enable', 'Enable', 'Enable')} ${action('rotate', 'Rotate secret', 'Rotate the secret of')} ${action('delete', 'Delete', 'Delete')}</td>
</tr>`;
}

function addForm(chrome: Chrome, draft: WebhookDraft): SafeHtml {
  const errors = chrome.fieldErrors;
  const focused = firstInvalid(['url', 'events', 'description'], errors);
  const eventsError = errors?.events;
  return html`<form method="post" action="/webhooks" class="stack" novalidate>
  ${csrfField(chrome.csrfToken)}
  ${textField({ label: 'URL', name: 'url', value: draft.url, hint: 'An https address that receives a signed POST per event.', attributes: html`required maxlength="2000" inputmode="url"` }, errors, focused)}
  <fieldset${eventsError ? html` class="invalid" aria-describedby="events-error"` : ''}><legend>Events</legend>
    ${eventsError ? html`<p class="field-error" id="events-error">${eventsError}</p>` : ''}
    ${WEBHOOK_EVENT_TYPES.map(
      (event, index) =>
        html`<label><input type="checkbox" name="events" value="${event}"${draft.events.includes(event) ? html` checked` : ''}${focused === 'events' && index === 0 ? html` autofocus` : ''}> <code>${event}</code></label>`,
    )}
  </fieldset>
  ${textField({ label: 'Description (optional)', name: 'description', value: draft.description, attributes: html`maxlength="200"` }, errors, focused)}
  <button type="submit">Add the endpoint</button>
</form>`;
}

/** The user's webhook endpoints (issue 30): the list, a new secret once, the add form, and a banner for disabled ones. */
export function webhooksPage(
  chrome: Chrome,
  endpoints: WebhookView[],
  shown: ShownWebhookSecret | null,
  draft: WebhookDraft = EMPTY_DRAFT,
): SafeHtml {
  return layout(
    'Webhooks',
    chrome,
    html`${banner(endpoints)}${secretPanel(shown)}
<p>We POST each event you choose to your endpoints, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). A delivery that fails is retried with backoff for 24 hours; then the endpoint is disabled until you enable it again.</p>
${
  endpoints.length === 0
    ? html`<p>No endpoints yet.</p>`
    : html`<table class="webhooks responsive">
  <caption class="visually-hidden">Your webhook endpoints</caption>
  <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${endpoints.map((endpoint) => endpointRow(chrome, endpoint))}</tbody>
</table>`
}
<h2>Add an endpoint</h2>
${addForm(chrome, draft)}`,
  );
}

/** One endpoint's delivery log, newest first, each delivery with a replay button. */
export function webhookDeliveriesPage(chrome: Chrome, endpoint: WebhookView, page: WebhookDeliveriesResponseBody): SafeHtml {
  const rows = page.items.map(
    (delivery) => html`<tr>
  <td data-label="Event"><code>${delivery.eventType}</code><br><span class="hint">${delivery.id}</span></td>
  <td data-label="Status">${delivery.status}</td>
  <td data-label="Attempts">${String(delivery.attempts)}</td>
  <td data-label="Last answer">${delivery.lastStatus === null ? (delivery.lastError ?? '') : `HTTP ${delivery.lastStatus}`}${delivery.lastResponseTimeMs === null ? '' : ` in ${delivery.lastResponseTimeMs} ms`}</td>
  <td data-label="Next attempt">${formatTime(delivery.nextAttemptAt)}</td>
  <td data-label="">${endpoint.enabled ? html`<form method="post" action="/webhooks/${endpoint.id}/deliveries/${delivery.id}/replay" class="inline">${csrfField(chrome.csrfToken)}<button type="submit" aria-label="Send the ${delivery.eventType} delivery of ${formatTime(delivery.createdAt)} again">Replay</button></form>` : ''}</td>
</tr>`,
  );
  return layout(
    `Deliveries to ${endpoint.url}`,
    chrome,
    html`${banner([endpoint])}<p><a href="/webhooks">All webhook endpoints</a></p>
${
  page.items.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<table class="deliveries responsive">
  <caption class="visually-hidden">Deliveries, newest first</caption>
  <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next attempt</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table>`
}
${page.nextCursor ? html`<p><a href="/webhooks/${endpoint.id}?cursor=${encodeURIComponent(page.nextCursor)}">Older deliveries</a></p>` : ''}`,
  );
}
