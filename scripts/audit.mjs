#!/usr/bin/env node
// `npm run audit -- <verify|export|prune> [options]`: runs the audit CLI of every service that keeps
// an audit trail (services/<name>/dist/audit-cli.js), one after the other; `--service <name>` picks
// one. The exit code is the worst of theirs, so `verify` fails when any chain is broken.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const SERVICES = ['identity', 'keys', 'billing'];
/** The commands of each service's audit CLI (libs/audit's audit-cli.ts): checked once here, not refused three times. */
const COMMANDS = ['verify', 'export', 'prune'];
const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const at = args.indexOf('--service');
let services = SERVICES;
if (at !== -1) {
  const chosen = args[at + 1];
  if (!SERVICES.includes(chosen)) {
    console.error(`--service must be one of ${SERVICES.join(', ')}`);
    process.exit(1);
  }
  services = [chosen];
  args.splice(at, 2);
}
if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
  console.log(`Usage: npm run audit -- <command> [--service ${SERVICES.join('|')}] [options]

Commands (each service's audit trail in turn; details: node services/keys/dist/audit-cli.js --help):
  verify                      recompute every hash chain; names edited and deleted entries; exit 1 when any
  export [--user ID] [--action NAME] [--target-id ID]
                              every entry as NDJSON on stdout, oldest first per service
  prune --older-than-days N   retention by hand (the services prune with AUDIT_RETENTION_DAYS); identity's
                              also prunes its account-page feed, which holds copies of every service's entries`);
  process.exit(0);
}
if (!COMMANDS.includes(args[0])) {
  console.error(`Unknown command "${args[0]}". Run with --help.`);
  process.exit(1);
}
let worst = 0;
for (const service of services) {
  const run = spawnSync(process.execPath, [path.join(root, 'services', service, 'dist', 'audit-cli.js'), ...args], { stdio: 'inherit' });
  worst = Math.max(worst, run.status ?? 1);
}
process.exit(worst);
