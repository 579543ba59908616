import type { ApiKeyOperationUsageResponseBody, ApiKeyUsageResponseBody, ApiKeyView } from '@acs/contracts';
import { html, type SafeHtml } from '../html.js';
import { canRoll, exposureNotice, keyStatus, lifecycleFacts } from '../key-lifecycle.js';
import { formatTime } from '../labels.js';
import { layout, type Chrome } from '../layout.js';
import { describeRateLimits } from '../rate-limits.js';
import { describeIpAllowList } from '../ip-allow-list.js';
import { operationTable } from '../quota-usage.js';
import { usageChart } from '../usage-chart.js';
import { secretPanels, type CreatedKey, type RolledKey } from './secret-panels.js';

export interface KeyPageData {
  key: ApiKeyView;
  /** null: the usage could not be read just now (the page works without it). */
  usage: ApiKeyUsageResponseBody | null;
  /** Per operation, last 7 days; null or absent: could not be read (the page works without it). */
  operations?: ApiKeyOperationUsageResponseBody | null;
  created: CreatedKey | null;
  rolled: RolledKey | null;
  publicGatewayUrl: string;
}

function actions(key: ApiKeyView): SafeHtml {
  if (key.revokedAt) return html`<p class="hint">A revoked key cannot be changed or used again.</p>`;
  const id = encodeURIComponent(key.id);
  return html`<p class="actions">
  <a class="button" href="/keys/${id}/edit">Edit</a>
  ${canRoll(key) ? html`<a class="button secondary" href="/keys/${id}/roll">Roll secret…</a>` : ''}
  <a class="button danger" href="/keys/${id}/revoke">Revoke…</a>
</p>`;
}

function usageSection(
  key: ApiKeyView,
  usage: ApiKeyUsageResponseBody | null,
  operations: ApiKeyOperationUsageResponseBody | null,
): SafeHtml {
  const chart = usage
    ? usageChart(key.id, key.name, usage)
    : html`<p class="warning">The usage of this key cannot be read right now. Reload the page in a moment.</p>`;
  return html`<section aria-labelledby="usage-title"><h2 id="usage-title">Usage</h2>
${chart}
${operationTable(operations)}
<p class="hint">Counted per UTC day (and hour and operation) and status class, within about 10 seconds.</p>
</section>`;
}

/** A key's own page: what it is, what it did, and the ways to change it (each behind its own page). */
export function keyPage(chrome: Chrome, data: KeyPageData): SafeHtml {
  const { key } = data;
  return layout(
    `Key “${key.name}”`,
    chrome,
    html`${secretPanels(data.created, data.rolled, data.publicGatewayUrl)}
<p><a href="/keys">← All keys</a></p>
${exposureNotice([key])}
<dl class="facts">
  <dt>Key id</dt><dd><code>${key.key}</code></dd>
  <dt>Status</dt><dd>${keyStatus(key)}</dd>
  <dt>Scopes</dt><dd>${key.scopes || '(none)'}</dd>
  <dt>Rate limits</dt><dd class="rate-limits">${describeRateLimits(key.rateLimits)}</dd>
  <dt>Allowed addresses</dt><dd class="ip-allow-list">${describeIpAllowList(key.ipAllowList)}</dd>
  <dt>Environment</dt><dd>${key.environment}</dd>
  <dt>Created</dt><dd>${formatTime(key.createdAt)}</dd>
  <dt>Last used</dt><dd>${key.lastUsedAt ? formatTime(key.lastUsedAt) : 'never'}</dd>
  ${lifecycleFacts(key)}
</dl>
${actions(key)}
${usageSection(key, data.usage, data.operations ?? null)}`,
  );
}
