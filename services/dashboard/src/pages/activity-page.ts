import type { AuditLogResponseBody } from '@acs/contracts';
import { ACTIVITY_FAMILIES, describeActivity, describeActor, type ActivityFamily, type AuditItem } from './activity-labels.js';
import { html, type SafeHtml } from './html.js';
import { formatTime } from './labels.js';
import { layout, type Chrome } from './layout.js';

/** What the page was asked for: the filters (kept across pages) and the position in the trail. */
export interface ActivityQuery {
  family: ActivityFamily | null;
  target: string;
  cursor: string | null;
}

/** The page's own address with these filters, from `cursor` on (null: the newest entries). */
export function activityHref(query: Pick<ActivityQuery, 'family' | 'target'>, cursor: string | null): string {
  const params = new URLSearchParams();
  if (query.family) params.set('family', query.family);
  if (query.target) params.set('target', query.target);
  if (cursor) params.set('cursor', cursor);
  const search = params.toString();
  return search ? `/activity?${search}` : '/activity';
}

function entryRow(item: AuditItem): SafeHtml {
  return html`<tr>
  <td data-label="When">${formatTime(item.occurredAt)}</td>
  <td data-label="Activity">${describeActivity(item)}</td>
  <td data-label="By">${describeActor(item)}</td>
  <td data-label="From">${item.actor.clientAddress ?? '—'}</td>
  <td data-label="Target"><code>${item.targetId}</code></td>
</tr>`;
}

function filterForm(query: ActivityQuery): SafeHtml {
  const options = ACTIVITY_FAMILIES.map(
    (family) => html`<option value="${family.value}"${query.family === family.value ? html` selected` : ''}>${family.label}</option>`,
  );
  return html`<form method="get" action="/activity" class="stacked" aria-label="Filter the activity">
  <div class="field"><label for="field-family">Kind</label>
  <select id="field-family" name="family"><option value="">Everything</option>${options}</select></div>
  <div class="field"><label for="field-target">Target</label>
  <p class="hint" id="field-target-hint">Only this key, session or subscription: paste its id from a row below.</p>
  <input type="text" id="field-target" name="target" value="${query.target}" maxlength="100" autocomplete="off" spellcheck="false" aria-describedby="field-target-hint"></div>
  <div><button type="submit">Show</button></div>
</form>`;
}

/**
 * The signed-in user's audit trail (issue 30): newest first, a page at a time ("Older entries"),
 * filtered by kind and target. Each entry in words; the raw before/after views are never shown.
 */
export function activityPage(chrome: Chrome, query: ActivityQuery, page: AuditLogResponseBody): SafeHtml {
  const filtered = query.family !== null || query.target !== '';
  const empty = filtered ? 'No activity matches these filters.' : 'Nothing is recorded yet.';
  const pager = [
    query.cursor ? html`<a href="${activityHref(query, null)}">Newest entries</a>` : '',
    page.nextCursor ? html`<a href="${activityHref(query, page.nextCursor)}" rel="next">Older entries</a>` : '',
  ].filter((link) => link !== '');
  return layout(
    'Activity',
    chrome,
    html`<p>Every change to your account, its sign-ins, API keys and subscriptions, newest first: what changed, who changed it and from which address.</p>
${filterForm(query)}
${
  page.items.length === 0
    ? html`<p>${empty}</p>`
    : html`<table class="activity responsive">
  <caption class="visually-hidden">Your activity${query.cursor ? ', older entries' : ''}</caption>
  <thead><tr><th scope="col">When</th><th scope="col">Activity</th><th scope="col">By</th><th scope="col">From</th><th scope="col">Target</th></tr></thead>
  <tbody>${page.items.map(entryRow)}</tbody>
</table>`
}
${pager.length > 0 ? html`<nav aria-label="Activity pages" class="pager">${pager.map((link, index) => html`${index > 0 ? ' · ' : ''}${link}`)}</nav>` : ''}`,
  );
}
