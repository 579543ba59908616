import type { ApiKeyUsageResponseBody } from '@acs/contracts';
import { html, type SafeHtml } from './html.js';

/** Bottom to top, as stacked: successes first, then redirects, client errors, rate-limited, server errors. */
const SERIES = [
  { status: '2xx', label: '2xx', color: '#2e7d32' },
  { status: '3xx', label: '3xx', color: '#5c6bc0' },
  { status: '4xx', label: '4xx (not 429)', color: '#ef6c00' },
  { status: '429', label: '429 rate limited', color: '#8e24aa' },
  { status: '5xx', label: '5xx', color: '#c62828' },
] as const;

const WIDTH = 300;
const HEIGHT = 64;

/**
 * A key's requests per day as a stacked bar chart in server-rendered SVG (no script): one bar per UTC
 * day, oldest on the left, coloured by status class. Presentation attributes only (no inline style),
 * so the page's Content-Security-Policy needs nothing new; the dates sit below in HTML, so a stretched
 * chart never distorts text. The numbers are in the bars' titles and in
 * the chart's text alternative too, for screen readers.
 */
export function usageChart(id: string, keyName: string, usage: ApiKeyUsageResponseBody): SafeHtml {
  const days = usage.days;
  const total = days.reduce((sum, day) => sum + day.requests, 0);
  const peak = Math.max(1, ...days.map((day) => day.requests));
  const slot = WIDTH / Math.max(1, days.length);
  const barWidth = Math.max(1, slot - 2);
  const plotHeight = HEIGHT - 1;
  const bars = days.map((day, i) => {
    let top = plotHeight;
    const parts = SERIES.map((series) => {
      const count = day.byStatus[series.status];
      if (count === 0) return html``;
      const height = (count / peak) * plotHeight;
      top -= height;
      return html`<rect x="${(i * slot + 1).toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" fill="${series.color}"/>`;
    });
    const detail = SERIES.map((series) => `${series.status}: ${day.byStatus[series.status]}`).join(', ');
    return html`<g class="day"><title>${day.date}: ${day.requests} requests (${detail})</title>${parts}<rect x="${(i * slot).toFixed(1)}" y="0" width="${slot.toFixed(1)}" height="${plotHeight}" fill="transparent"/></g>`;
  });
  const first = days[0]?.date ?? '';
  const last = days[days.length - 1]?.date ?? '';
  const summary = `Requests per day with key “${keyName}” from ${first} to ${last}: ${total} in all, at most ${total === 0 ? 0 : peak} on one day.`;
  return html`<figure class="usage" id="usage-${id}">
  <figcaption>Requests, last ${days.length} days (UTC): <strong>${total}</strong>${total === 0 ? ' (no traffic yet)' : html`, peak ${peak} a day`}</figcaption>
  <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" height="${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${summary}">
    <line x1="0" y1="${plotHeight}" x2="${WIDTH}" y2="${plotHeight}" stroke="#9aa5b1" stroke-width="0.5"/>
    ${bars}
  </svg>
  <p class="axis" aria-hidden="true"><span>${first}</span><span>${last}</span></p>
  <ul class="legend">${SERIES.map((series) => html`<li><svg viewBox="0 0 10 10" width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${series.color}"/></svg> ${series.label}</li>`)}</ul>
</figure>`;
}
