import { UsageError, assertNoOperands, openCliStore, type CliDefinition, type CliOptions } from '@acs/cli';
import type { Db } from '@acs/db';
import type { AuditEntry } from './audit-entry.js';
import { listAudit, pruneAudit, type AuditFilter } from './audit-repository.js';
import type { AuditTable } from './audit-table.js';
import { verifyAuditChain } from './verify-chain.js';

const help = (service: string) => `The ${service} service's audit trail (operators; every service has its own, hash-chained).

Usage: node services/${service}/dist/audit-cli.js <command> [options]   (npm run audit -- <command> runs it for every service)

Commands:
  verify                 Recompute the hash chain; names every edited entry and every entry whose predecessor was deleted. Exit 1 when any.
  export [--user ID] [--action NAME] [--target-id ID] [--after-id N]
                         Every entry (or those matching), oldest first, one JSON object a line (NDJSON) on stdout.
  prune --older-than-days N
                         Retention: delete entries older than N days, with what the service keeps of them elsewhere
                         (identity: the account page's feed); the service does this itself with AUDIT_RETENTION_DAYS.

Environment: ${service.toUpperCase()}_DATABASE_URL, or DATABASE_URL (the ${service} database is <name>_${service}), or DATA_DIR (embedded, default ./.data).`;

const OPTIONS = {
  user: { type: 'string' },
  action: { type: 'string' },
  'target-id': { type: 'string' },
  'after-id': { type: 'string' },
  'older-than-days': { type: 'string' },
} satisfies CliOptions;

const wholeNumberOption = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
};

/** One line of the export: the entry as stored, its service named, times in ISO 8601. */
function entryLine(entry: AuditEntry): string {
  return JSON.stringify({ ...entry, occurredAt: entry.occurredAt.toISOString() });
}

async function exportEntries(db: Db, table: AuditTable, filter: Omit<AuditFilter, 'limit' | 'order'>): Promise<void> {
  let afterId = filter.afterId ?? 0;
  for (;;) {
    const batch = await listAudit(db, table, { ...filter, afterId, limit: 1000, order: 'oldest' });
    if (batch.length > 0) process.stdout.write(`${batch.map(entryLine).join('\n')}\n`);
    if (batch.length < 1000) return;
    afterId = batch[batch.length - 1]!.id;
  }
}

async function verify(db: Db, table: AuditTable): Promise<boolean> {
  const report = await verifyAuditChain(db, table);
  const range = report.firstId === null ? 'no entries' : `entries ${report.firstId}-${report.lastId}`;
  const pruned = report.startsAfterPrune ? ' (older entries pruned)' : '';
  if (report.problems.length === 0) {
    console.log(`${table.service}: ${report.checked} audit entries verified, ${range}${pruned}: the chain is intact`);
    return true;
  }
  console.log(`${table.service}: ${report.problems.length} problem(s) in ${report.checked} audit entries, ${range}${pruned}:`);
  for (const problem of report.problems) console.log(`  ${table.service} audit entry ${problem.id}: ${problem.message}`);
  return false;
}

/** What `prune` deletes elsewhere with the trail (identity's copy of every service's entries), and how it names it. */
interface AlsoPrune {
  what: string;
  prune(db: Db, days: number): Promise<number>;
}

async function prune(db: Db, table: AuditTable, days: number, also: AlsoPrune | undefined): Promise<void> {
  const deleted = await pruneAudit(db, table, days);
  const copies = also ? `, and ${await also.prune(db, days)} ${also.what}` : '';
  console.log(`${table.service}: ${deleted} audit entries older than ${days} days deleted${copies}`);
}

/**
 * The audit CLI of one service (services/<name>/src/audit-cli.ts runs it with runCli). `also`:
 * what the service keeps of entries besides its trail, pruned with it as the service's own
 * retention does (startAuditRetention's `alsoPrune`).
 */
export function auditCli(table: AuditTable, migrationsDir: string, also?: AlsoPrune): CliDefinition<typeof OPTIONS> {
  return {
    help: help(table.service),
    commands: ['verify', 'export', 'prune'],
    options: OPTIONS,
    async run({ command, operands, values }) {
      assertNoOperands(operands);
      const olderThanDays = wholeNumberOption('older-than-days', values['older-than-days']);
      if (command === 'prune' && olderThanDays === undefined) throw new UsageError('prune needs --older-than-days N');
      const userId = wholeNumberOption('user', values.user);
      const afterId = wholeNumberOption('after-id', values['after-id']);
      const store = await openCliStore({ service: table.service, cli: `${table.service} audit cli`, migrationsDir, sharedCache: false });
      try {
        if (command === 'verify') return await verify(store.db, table);
        if (command === 'prune') {
          await prune(store.db, table, olderThanDays!, also);
          return true;
        }
        await exportEntries(store.db, table, {
          ...(userId !== undefined ? { userId } : {}),
          ...(values.action !== undefined ? { action: values.action } : {}),
          ...(values['target-id'] !== undefined ? { targetId: values['target-id'] } : {}),
          ...(afterId !== undefined ? { afterId } : {}),
        });
        return true;
      } finally {
        await store.close();
      }
    },
  };
}
