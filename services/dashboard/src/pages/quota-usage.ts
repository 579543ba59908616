import type { ApiKeyOperationUsageResponseBody, UsageResponseBody } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';

const count = (n: number): string => n.toLocaleString('en-US');
const PERIOD_NAMES = { month: 'This month', day: 'Today' } as const;
const planLabel = (plan: string | null): string =>
  plan === null ? 'no quota' : plan === 'trial' ? 'the trial' : plan === 'none' ? 'no subscription' : `the ${plan} plan`;

/** The overview's "used / left this period" (GET /api/Usage): the gateway's own count against the plan quota. */
export function quotaBox(usage: UsageResponseBody | null): SafeHtml {
  if (usage === null) return html`<li><h2>Quota</h2><p>The quota cannot be read right now.</p></li>`;
  const lines = usage.periods.map((period) =>
    period.quota === null
      ? html`<p>${PERIOD_NAMES[period.period]}: <strong>${count(period.used)}</strong> requests, no cap.</p>`
      : html`<p class="${period.left === 0 ? 'no' : 'yes'}">${PERIOD_NAMES[period.period]}: <strong>${count(period.used)}</strong> used / <strong>${count(period.left ?? 0)}</strong> left of ${count(period.quota)}</p><p class="hint">Resets ${formatTime(period.resetsAt)}.</p>`,
  );
  return html`<li><h2>Quota</h2>${lines}<p>All your keys together, under ${planLabel(usage.plan)}. <a href="/subscriptions">Compare the plans</a></p></li>`;
}

/** A key's requests per operation over the last 7 days (GET /api/ApiKeys/{id}/usage?by=operation), most first. */
export function operationTable(usage: ApiKeyOperationUsageResponseBody | null): SafeHtml {
  if (usage === null) return html`<p class="warning">The usage per operation cannot be read right now.</p>`;
  if (usage.operations.length === 0) return html`<p>No requests in the last 7 days.</p>`;
  return html`<table class="responsive"><caption>Requests per operation, last 7 days (UTC)</caption><thead><tr><th scope="col">Operation</th><th scope="col">Requests</th><th scope="col">2xx</th><th scope="col">3xx</th><th scope="col">4xx</th><th scope="col">429</th><th scope="col">5xx</th></tr></thead>
<tbody>${usage.operations.map(
    (op) =>
      html`<tr><td data-label="Operation"><code>${op.operationId}</code></td><td data-label="Requests">${count(op.requests)}</td><td data-label="2xx">${count(op.byStatus['2xx'])}</td><td data-label="3xx">${count(op.byStatus['3xx'])}</td><td data-label="4xx">${count(op.byStatus['4xx'])}</td><td data-label="429">${count(op.byStatus['429'])}</td><td data-label="5xx">${count(op.byStatus['5xx'])}</td></tr>`,
  )}</tbody></table>`;
}
