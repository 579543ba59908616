// Writes k8s/monitoring/prometheus-rule.yaml (a PrometheusRule for the Prometheus Operator) from
// the plain rules file k8s/monitoring/prometheus-rules.yaml, the one place the rules are edited.
// test/monitoring checks the two agree, so an edit without a regeneration fails the tests.
//   node scripts/generate-prometheus-rule.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

const root = new URL('../', import.meta.url);
const plain = parse(readFileSync(new URL('k8s/monitoring/prometheus-rules.yaml', root), 'utf8'));

const header = `# GENERATED from prometheus-rules.yaml by \`node scripts/generate-prometheus-rule.mjs\`: edit that file.
# kubectl apply -f k8s/monitoring/prometheus-rule.yaml   (needs the Prometheus Operator's CRDs)
# The operator picks it up when its ruleSelector matches these labels (kube-prometheus-stack's
# default selects release: <its Helm release name>): adjust the labels to your install.
`;
const rule = {
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: { name: 'acs-alerts', namespace: 'acs', labels: { 'app.kubernetes.io/part-of': 'acs', release: 'prometheus' } },
  spec: { groups: plain.groups },
};
writeFileSync(new URL('k8s/monitoring/prometheus-rule.yaml', root), header + stringify(rule, { lineWidth: 0 }));
console.log('wrote k8s/monitoring/prometheus-rule.yaml');
