import { systemActor } from '@acs/audit';
import { startPeriodicPurge, type PeriodicPurge, type Queryable } from '@acs/db';
import { lockApiKeys } from '../data-access/api-keys-repository.js';
import { claimDueReminders, tryLockExpirySweep, type ClaimedReminder } from '../data-access/expiry-reminders-repository.js';
import { recordKeyChange } from '../events/keys-audit.js';
import { recordKeyEvent, type ExpiryDaysAhead } from '../events/record-key-event.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';

/** Reminders claimed per transaction: a backlog (a first start, a long outage) goes out in several short ones. */
const BATCH = 200;
/** Keys that expired longer ago than this get no `expired` event (the sweep did not run then, or did not exist). */
const EXPIRED_LOOKBACK_DAYS = 7;

const SWEEP_ACTOR = systemActor('keys expiry sweep');

const DAYS_AHEAD: Record<Exclude<ClaimedReminder['kind'], 'expired'>, ExpiryDaysAhead> = {
  expiring_30: 30,
  expiring_7: 7,
  expiring_1: 1,
};

/**
 * Records one reminder's event (and, for `expired`, its audit entry) in the claim's transaction. A key
 * revoked or given another expiry since the claim (its lock waited for that change) gets nothing: the
 * claimed row stays, so it is not tried again.
 */
async function recordReminder(tx: Queryable, reminder: ClaimedReminder, apiKey: ApiKey | undefined): Promise<boolean> {
  if (!apiKey || apiKey.revokedAt || apiKey.expiresAt?.getTime() !== reminder.expiresAt.getTime()) return false;
  if (reminder.kind === 'expired') {
    await recordKeyEvent(tx, 'expired', apiKey, { eventId: reminder.eventId });
    await recordKeyChange(tx, SWEEP_ACTOR, 'api_key.expired', null, apiKey);
  } else {
    await recordKeyEvent(tx, 'expiring', apiKey, { eventId: reminder.eventId, daysAhead: DAYS_AHEAD[reminder.kind] });
  }
  return true;
}

/** One batch in one transaction: the reminder rows, their events and audit entries commit together. */
async function sweepBatch(deps: Pick<KeysDeps, 'db'>, now: Date): Promise<{ claimed: number; recorded: number } | null> {
  return deps.db.transaction(async (tx) => {
    if (!(await tryLockExpirySweep(tx))) return null;
    const claimed = await claimDueReminders(tx, now, EXPIRED_LOOKBACK_DAYS, BATCH);
    const keys = new Map((await lockApiKeys(tx, [...new Set(claimed.map((reminder) => reminder.keyId))])).map((key) => [key.id, key]));
    let recorded = 0;
    for (const reminder of claimed) if (await recordReminder(tx, reminder, keys.get(reminder.keyId))) recorded += 1;
    return { claimed: claimed.length, recorded };
  });
}

/**
 * Records the expiry reminders due at `now` (api_key.expiring.v1 30, 7 and 1 days ahead, then
 * api_key.expired.v1), each once per key and expiry date, and answers how many it recorded. Another
 * replica sweeping at the same moment makes this pass skip (advisory lock); the reminder rows'
 * primary key is what makes each one once even without it (docs/architecture.md).
 */
export async function sweepKeyExpiry(deps: Pick<KeysDeps, 'db' | 'onOutboxWrite'>, now: Date = new Date()): Promise<number> {
  let total = 0;
  for (;;) {
    const batch = await sweepBatch(deps, now);
    if (!batch) break;
    total += batch.recorded;
    if (batch.recorded > 0) deps.onOutboxWrite();
    if (batch.claimed < BATCH) break;
  }
  return total;
}

/** Sweeps now and every `everySeconds` in the keys process (KEY_EXPIRY_SWEEP_SECONDS). */
export const startExpirySweep = (deps: KeysDeps, everySeconds: number): PeriodicPurge =>
  startPeriodicPurge(() => sweepKeyExpiry(deps), everySeconds * 1000, deps.logger, {
    done: 'recorded API key expiry reminders',
    failed: 'could not sweep API key expiries; will try again',
    context: { everySeconds },
  });
