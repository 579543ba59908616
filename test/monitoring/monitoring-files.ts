import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './metric-names.js';

// The files under k8s/monitoring as plain objects, and promtool.

export const RULES_FILE = 'k8s/monitoring/prometheus-rules.yaml';
export const PROMETHEUS_RULE_FILE = 'k8s/monitoring/prometheus-rule.yaml';
export const DASHBOARD_FILE = 'k8s/monitoring/grafana-dashboard.json';
export const OPERATIONS_DOC = 'docs/operations.md';

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

export const readRepoFile = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

export const plainRuleGroups = (): RuleGroup[] => (parse(readRepoFile(RULES_FILE)) as { groups: RuleGroup[] }).groups;

/**
 * Runs promtool from the repository's root. Missing, it fails the test with the way to install it
 * (never a skip): the rules would otherwise go unchecked.
 */
export function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error(
      "promtool is not installed: run `sudo bash scripts/install-promtool.sh` (Debian's prometheus package; .ci/run does it)",
    );
  }
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The anchors GitHub gives the headings of a Markdown file (lower case, punctuation dropped, spaces to -). */
export function headingAnchors(markdown: string): Set<string> {
  const headings = [...markdown.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) => m[1]!);
  return new Set(
    headings.map((text) =>
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}
