import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { knownSeriesLabels, knownSeriesNames, metricNamesIn, unknownLabels } from './metric-names.js';
import {
  OPERATIONS_DOC,
  PROMETHEUS_RULE_FILE,
  RULES_FILE,
  headingAnchors,
  plainRuleGroups,
  promtool,
  readRepoFile,
} from './monitoring-files.js';

// k8s/monitoring's alerting rules: valid for Prometheus, doing what their unit tests say, naming
// only metrics that exist, documented, and the same in the plain file and the PrometheusRule.

const rules = () => plainRuleGroups().flatMap((group) => group.rules);

describe('the plain rules file', () => {
  it('passes promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', RULES_FILE);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('passes promtool test rules (test/monitoring/alerts.promtest.yaml: the outbox, dead-letter and 5xx alerts)', () => {
    const { status, output } = promtool('test', 'rules', 'test/monitoring/alerts.promtest.yaml');
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('holds the alerts issue 20 asks for', () => {
    const byMetric = (metric: string) =>
      rules()
        .filter((rule) => metricNamesIn(rule.expr).includes(metric))
        .map((rule) => rule.alert);
    for (const metric of [
      'http_server_requests_total',
      'gateway_upstream_failures_total',
      'billing_outbox_oldest_pending_age_seconds',
      'bus_messages_consumed_total',
      'identity_login_throttled_total',
      'gateway_auth_rejections_total',
      'gateway_rate_limited_total',
      'kube_pod_status_ready',
      'up',
    ]) {
      expect({ metric, alerts: byMetric(metric).length > 0 }).toEqual({ metric, alerts: true });
    }
    const outbox = rules().find((rule) => rule.alert === 'BillingOutboxStalled');
    expect(outbox?.expr).toMatch(/billing_outbox_oldest_pending_age_seconds\)?\s*>\s*300\b/);
    const deadLetters = rules().find((rule) => rule.alert === 'BusEventDeadLettered');
    expect(deadLetters?.expr).toMatch(/outcome="dead_lettered"[\s\S]*>\s*0$/);
  });

  it('names only metrics the code registers, prom-client exposes, or Kubernetes provides', async () => {
    const known = await knownSeriesNames();
    const unknown = rules().flatMap((rule) =>
      metricNamesIn(rule.expr)
        .filter((name) => !known.has(name))
        .map((name) => `${rule.alert}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('uses only labels those metrics carry (docs/observability.md, Metrics)', async () => {
    const known = await knownSeriesLabels();
    expect(rules().flatMap((rule) => unknownLabels(rule.expr, known).map((label) => `${rule.alert}: ${label}`))).toEqual([]);
  });

  it('gives each alert a severity, a summary, a description and a runbook entry in docs/operations.md', () => {
    const anchors = headingAnchors(readRepoFile(OPERATIONS_DOC));
    const names = rules().map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of rules()) {
      const runbook = rule.annotations?.runbook_url ?? '';
      expect({
        alert: rule.alert,
        severity: ['critical', 'warning'].includes(rule.labels?.severity ?? ''),
        summary: (rule.annotations?.summary ?? '').length > 0,
        description: (rule.annotations?.description ?? '').length > 0,
        runbook: runbook.startsWith(`${OPERATIONS_DOC}#`) && anchors.has(runbook.slice(OPERATIONS_DOC.length + 1)),
      }).toEqual({ alert: rule.alert, severity: true, summary: true, description: true, runbook: true });
    }
  });
});

describe('the PrometheusRule', () => {
  const resource = () =>
    parse(readRepoFile(PROMETHEUS_RULE_FILE)) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string; namespace: string };
      spec: { groups: unknown };
    };

  it('is a monitoring.coreos.com/v1 PrometheusRule in the namespace acs', () => {
    const { apiVersion, kind, metadata } = resource();
    expect({ apiVersion, kind, namespace: metadata.namespace }).toEqual({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      namespace: 'acs',
    });
  });

  it("holds exactly the plain file's groups (regenerate: node scripts/generate-prometheus-rule.mjs)", () => {
    expect(resource().spec.groups).toEqual(plainRuleGroups());
  });
});
