import { groupWriter, type Db, type GroupWriter } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { Agent } from 'undici';
import { claimDue, type ClaimedDelivery } from '../data-access/claim-due.js';
import { recordOutcomes, type AttemptOutcome, type Settlement } from '../data-access/record-outcomes.js';
import { givesUp, retryDelayMs, type RetrySchedule } from '../domain/retry-schedule.js';
import type { SecretBox } from '../domain/secret-box.js';
import { webhookHeaders } from '../domain/signing.js';

import { postWebhook, type PostLimits, type PostResult } from './post-webhook.js';

export interface SenderSettings {
  limits: PostLimits;
  schedule: RetrySchedule;
  maxInFlight: number;
  maxInFlightPerEndpoint: number;
  pollIntervalMs: number;
  claimLeaseMs: number;
}

export interface Sender {
  /** Look for due deliveries now (after a fan-out, a replay, an endpoint re-enabled). */
  wake(): void;
  /** Stops claiming and waits for the attempts in flight to be recorded. */
  close(): Promise<void>;
  /**
   * Stops as a crash would: the attempts in flight are cut off and never recorded, so their
   * deliveries come due again when their claims' leases end (the kill-and-restart test).
   */
  abandon(): Promise<void>;
}

/**
 * The secrets that sign an attempt: the current one, and the one a rotation replaced while it still signs. A
 * previous secret no key opens (an owner rotated a secret that was already unreadable) is left out rather than
 * failing the attempt: the current one is what the owner's receiver is being moved to.
 */
export function liveSecrets(secrets: SecretBox, delivery: ClaimedDelivery, now: Date): string[] {
  const live = [secrets.open(delivery.secretBox)];
  if (delivery.previousSecretBox && delivery.previousSecretEndsAt && delivery.previousSecretEndsAt > now) {
    const previous = secrets.tryOpen(delivery.previousSecretBox);
    if (previous !== null) live.push(previous);
  }
  return live;
}

const describeFailure = (result: PostResult): string => (result.status === null ? result.error! : `HTTP ${result.status}`);

/** Delivered, retried later (full jitter), or given up, which disables the endpoint with a reason its owner reads. */
function settlementOf(delivery: ClaimedDelivery, result: PostResult, now: Date, schedule: RetrySchedule): Settlement {
  if (result.error === null) return { kind: 'delivered' };
  if (!givesUp(delivery.scheduleStartedAt, now, schedule))
    return { kind: 'retry', retryInMs: retryDelayMs(delivery.retryIndex + 1, schedule.delaysMs) };
  const hours = Math.round(schedule.giveUpAfterMs / 360_000) / 10;
  return {
    kind: 'failed',
    disableReason: `Deliveries kept failing for ${hours} h (last attempt: ${describeFailure(result)}); fix the endpoint, then enable it again`,
  };
}

/**
 * Records attempts finishing together in one statement; each learns whether it settled its
 * delivery (false: its claim had been taken over, or the delivery deleted).
 */
function outcomeRecorder(db: Db): GroupWriter<AttemptOutcome, boolean> {
  return groupWriter(async (outcomes: AttemptOutcome[]) => {
    const applied = await recordOutcomes(db, outcomes);
    return outcomes.map((outcome) => applied.has(outcome.deliveryId));
  });
}

/** Records the attempt (grouped with the others finishing now) and settles its delivery. */
async function settle(
  record: GroupWriter<AttemptOutcome, boolean>,
  logger: Logger,
  delivery: ClaimedDelivery,
  startedAt: Date,
  result: PostResult,
  schedule: RetrySchedule,
): Promise<void> {
  const settlement = settlementOf(delivery, result, new Date(), schedule);
  const applied = await record({
    deliveryId: delivery.id,
    claimToken: delivery.claimToken,
    attempt: delivery.attempt,
    startedAt,
    ...result,
    settlement,
  });
  if (applied && settlement.kind === 'failed')
    logger.warn({ deliveryId: delivery.id, endpointId: delivery.endpointId }, 'webhook delivery gave up; endpoint disabled');
}

/**
 * The loop that sends due deliveries: claims as many as it has free slots for (at most
 * maxInFlight in all and maxInFlightPerEndpoint to one endpoint, so a slow endpoint holds only its
 * own slots), sends each without waiting for the others, records each attempt and settles the
 * delivery: delivered, retried later (full jitter), or given up with its endpoint disabled. An
 * attempt holds its slot until its outcome is committed; outcomes finishing together commit as
 * one statement (libs/db group-writer.ts).
 */
export function startSender(db: Db, logger: Logger, secrets: SecretBox, agent: Agent, settings: SenderSettings): Sender {
  const perEndpoint = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  const record = outcomeRecorder(db);
  let passing = false;
  let again = false;
  let closed = false;

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    let result: PostResult;
    try {
      const headers = webhookHeaders(
        liveSecrets(secrets, delivery, startedAt),
        delivery.id,
        Math.floor(startedAt.getTime() / 1000),
        delivery.body,
      );
      result = await postWebhook(agent, delivery.url, headers, delivery.body, settings.limits, abort.signal);
    } catch (err) {
      logger.error({ err, deliveryId: delivery.id }, 'could not sign a webhook delivery');
      result = { status: null, durationMs: 0, error: 'signing_failed' };
    }
    if (abort.signal.aborted) return; // abandoned: the claim's lease brings it back
    await settle(record, logger, delivery, startedAt, result, settings.schedule).catch((err: unknown) =>
      logger.warn({ err, deliveryId: delivery.id }, 'could not record a webhook attempt; the delivery is retried when its claim ends'),
    );
  }

  function launch(delivery: ClaimedDelivery): void {
    perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const running = attempt(delivery).finally(() => {
      const left = (perEndpoint.get(delivery.endpointId) ?? 1) - 1;
      if (left === 0) perEndpoint.delete(delivery.endpointId);
      else perEndpoint.set(delivery.endpointId, left);
      inFlight.delete(running);
      wake();
    });
    inFlight.add(running);
  }

  async function pass(): Promise<void> {
    passing = true;
    try {
      do {
        again = false;
        const free = settings.maxInFlight - inFlight.size;
        if (free <= 0 || closed) break;
        const claimed = await claimDue(db, {
          limit: free,
          leaseMs: settings.claimLeaseMs,
          busyEndpoints: perEndpoint,
          perEndpoint: settings.maxInFlightPerEndpoint,
        });
        if (closed) {
          // Claimed while closing: left to the lease, like an abandoned attempt.
          break;
        }
        for (const delivery of claimed) launch(delivery);
        if (claimed.length === free) again = true;
      } while (again && !closed);
    } catch (err) {
      logger.warn({ err }, 'could not claim due webhook deliveries; trying again at the next poll');
    } finally {
      passing = false;
    }
  }

  function wake(): void {
    if (closed) return;
    if (passing) {
      again = true;
      return;
    }
    void pass();
  }

  const timer = setInterval(wake, settings.pollIntervalMs);
  timer.unref();
  wake();

  async function stop(): Promise<void> {
    closed = true;
    clearInterval(timer);
    while (passing) await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.allSettled([...inFlight]);
  }

  return {
    wake,
    close: stop,
    async abandon() {
      abort.abort();
      await stop();
    },
  };
}
