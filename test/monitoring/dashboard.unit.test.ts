import { describe, expect, it } from '@jest/globals';
import { knownSeriesLabels, knownSeriesNames, metricNamesIn, unknownLabels } from './metric-names.js';
import { DASHBOARD_FILE, readRepoFile } from './monitoring-files.js';

// The Grafana dashboard: importable as it is (uid, title, schemaVersion, a Prometheus data-source
// variable every query goes through) and naming only metrics that exist.

interface Target {
  refId: string;
  expr: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  datasource?: { uid?: string };
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: Variable[] };
  panels: Panel[];
}

const dashboard = (): Dashboard => JSON.parse(readRepoFile(DASHBOARD_FILE)) as Dashboard;
const queryPanels = () =>
  dashboard()
    .panels.flatMap((panel) => [panel, ...(panel.panels ?? [])])
    .filter((panel) => panel.type !== 'row');
const exprs = () => queryPanels().flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's reference to the data-source variable, not a JS template
const DATASOURCE = '${datasource}';

describe('the Grafana dashboard', () => {
  it('has what an import needs: a uid, a title, a schemaVersion and a Prometheus data-source variable', () => {
    const { uid, title, schemaVersion, templating } = dashboard();
    expect(uid).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(title.length).toBeGreaterThan(0);
    expect(schemaVersion).toBeGreaterThanOrEqual(30);
    expect(templating.list.find((variable) => variable.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
  });

  it('sends every query through the data-source variable, with unique panel ids', () => {
    const panels = queryPanels();
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) {
      expect({ panel: panel.title, uid: panel.datasource?.uid, targets: (panel.targets ?? []).length > 0 }).toEqual({
        panel: panel.title,
        uid: DATASOURCE,
        targets: true,
      });
      for (const target of panel.targets ?? [])
        expect({ panel: panel.title, uid: target.datasource?.uid ?? DATASOURCE }).toEqual({ panel: panel.title, uid: DATASOURCE });
    }
    const ids = dashboard()
      .panels.flatMap((panel) => [panel, ...(panel.panels ?? [])])
      .map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const variable of dashboard().templating.list.filter((v) => v.type === 'query')) expect(variable.datasource?.uid).toBe(DATASOURCE);
  });

  it('names only metrics the code registers or prom-client exposes, in panels and variables', async () => {
    const known = await knownSeriesNames();
    const variableQueries = dashboard()
      .templating.list.filter((variable) => variable.type === 'query')
      .map((variable) => (typeof variable.query === 'string' ? variable.query : variable.query.query))
      .map((query) => /^label_values\(\s*([^,)]+)/.exec(query)?.[1] ?? query);
    const unknown = [...exprs(), ...variableQueries].flatMap((expr) =>
      metricNamesIn(expr)
        .filter((name) => !known.has(name))
        .map((name) => `${name} in ${expr}`),
    );
    expect(unknown).toEqual([]);
  });

  it('uses only labels those metrics carry', async () => {
    const known = await knownSeriesLabels();
    expect(exprs().flatMap((expr) => unknownLabels(expr, known).map((label) => `${label} in ${expr}`))).toEqual([]);
  });

  it('shows rates, p50 and p99 by route, auth refusals by reason, rate limits, the outbox, consumers, event-loop lag and memory', () => {
    const all = exprs();
    const some = (pattern: RegExp) => all.some((expr) => pattern.test(expr));
    expect({
      rates: some(/rate\(http_server_requests_total/),
      p50: some(/histogram_quantile\(0\.5,[\s\S]*\broute\b[\s\S]*http_server_request_duration_seconds_bucket/),
      p99: some(/histogram_quantile\(0\.99,[\s\S]*\broute\b[\s\S]*http_server_request_duration_seconds_bucket/),
      authByReason: some(/by \(reason\) \(rate\(gateway_auth_rejections_total/),
      rateLimited: some(/gateway_rate_limited_total/),
      outboxPending: some(/billing_outbox_pending_events/),
      outboxAge: some(/billing_outbox_oldest_pending_age_seconds/),
      consumers: some(/by \([^)]*outcome[^)]*\) \(rate\(bus_messages_consumed_total/),
      eventLoopLag: some(/nodejs_eventloop_lag_\w*seconds/),
      memory: some(/process_resident_memory_bytes|nodejs_heap_size_used_bytes/),
    }).toEqual({
      rates: true,
      p50: true,
      p99: true,
      authByReason: true,
      rateLimited: true,
      outboxPending: true,
      outboxAge: true,
      consumers: true,
      eventLoopLag: true,
      memory: true,
    });
  });
});
