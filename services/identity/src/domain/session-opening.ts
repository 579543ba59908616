import type { AuditActor } from '@acs/audit';
import { groupWriter, type Db, type GroupWriter } from '@acs/db';
import { insertSession } from '../data-access/sessions-repository.js';
import { recordSessionsCreated, type SessionAuditView } from './session-audit.js';

/** A session a sign-in opens, with who signed in (the audit entry's actor). */
export interface SessionToOpen {
  session: SessionAuditView;
  userId: number;
  address: string | null;
  actor: AuditActor;
}

/**
 * The sessions of the sign-ins that arrive together, in one transaction: every session row first,
 * then the group's audit entries as one append, so the chain's lock is still the last thing taken,
 * after the group's row locks (decision 14), and it is held for a few statements and one commit
 * per group instead of per sign-in. The entries link in the order of the group.
 */
async function openGroup(db: Db, group: SessionToOpen[]): Promise<undefined[]> {
  await db.transaction(async (tx) => {
    for (const { session, userId, address } of group) await insertSession(tx, { ...session, userId, address });
    await recordSessionsCreated(tx, group);
  });
  return group.map(() => undefined);
}

const writers = new WeakMap<Db, GroupWriter<SessionToOpen, undefined>>();

/**
 * Opens a session with its audit entry, grouped with the other sign-ins of this process that wait
 * meanwhile (libs/db group-writer.ts); resolves once its group committed. A group that fails is
 * opened again one sign-in at a time, so one bad sign-in fails only itself.
 */
export function openSessionGrouped(db: Db, toOpen: SessionToOpen): Promise<void> {
  let write = writers.get(db);
  if (write === undefined) {
    write = groupWriter((group: SessionToOpen[]) => openGroup(db, group));
    writers.set(db, write);
  }
  return write(toOpen);
}
