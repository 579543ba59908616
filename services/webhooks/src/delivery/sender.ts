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

/** What an attempt needs besides its delivery: how it is signed, sent and recorded, and the signal that abandons it. */
interface AttemptContext {
  record: GroupWriter<AttemptOutcome, boolean>;
  logger: Logger;
  secrets: SecretBox;
  agent: Agent;
  settings: SenderSettings;
  signal: AbortSignal;
}

/** Signs and sends one delivery, then records the attempt and settles the delivery (unless the sender was abandoned meanwhile). */
async function attempt(context: AttemptContext, delivery: ClaimedDelivery): Promise<void> {
  const { logger, settings, signal } = context;
  const startedAt = new Date();
  let result: PostResult;
  try {
    const headers = webhookHeaders(
      liveSecrets(context.secrets, delivery, startedAt),
      delivery.id,
      Math.floor(startedAt.getTime() / 1000),
      delivery.body,
    );
    result = await postWebhook(context.agent, delivery.url, headers, delivery.body, settings.limits, signal);
  } catch (err) {
    logger.error({ err, deliveryId: delivery.id }, 'could not sign a webhook delivery');
    result = { status: null, durationMs: 0, error: 'signing_failed' };
  }
  if (signal.aborted) return; // abandoned: the claim's lease brings it back
  await settle(context.record, logger, delivery, startedAt, result, settings.schedule).catch((err: unknown) =>
    logger.warn({ err, deliveryId: delivery.id }, 'could not record a webhook attempt; the delivery is retried when its claim ends'),
  );
}

/**
 * The loop that sends due deliveries: claims as many as it has free slots for (at most
 * maxInFlight in all and maxInFlightPerEndpoint to one endpoint, so a slow endpoint holds only its
 * own slots), sends each without waiting for the others, records each attempt and settles the
 * delivery: delivered, retried later (full jitter), or given up with its endpoint disabled. An
 * attempt holds its slot until its outcome is committed; outcomes finishing together commit as
 * one statement (libs/db group-writer.ts).
 */
class SendingLoop implements Sender {
  private readonly perEndpoint = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly context: AttemptContext;
  private readonly timer: NodeJS.Timeout;
  private passing = false;
  private again = false;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    secrets: SecretBox,
    agent: Agent,
    private readonly settings: SenderSettings,
  ) {
    this.context = { record: outcomeRecorder(db), logger, secrets, agent, settings, signal: this.abort.signal };
    this.timer = setInterval(this.wake, settings.pollIntervalMs);
    this.timer.unref();
  }

  readonly wake = (): void => {
    if (this.closed) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    void this.pass();
  };

  readonly close = async (): Promise<void> => {
    this.closed = true;
    clearInterval(this.timer);
    while (this.passing) await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.allSettled([...this.inFlight]);
  };

  readonly abandon = async (): Promise<void> => {
    this.abort.abort();
    await this.close();
  };

  private launch(delivery: ClaimedDelivery): void {
    const { perEndpoint } = this;
    perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
    const running = attempt(this.context, delivery).finally(() => {
      const left = (perEndpoint.get(delivery.endpointId) ?? 1) - 1;
      if (left === 0) perEndpoint.delete(delivery.endpointId);
      else perEndpoint.set(delivery.endpointId, left);
      this.inFlight.delete(running);
      this.wake();
    });
    this.inFlight.add(running);
  }

  private async pass(): Promise<void> {
    this.passing = true;
    try {
      do {
        this.again = false;
        const free = this.settings.maxInFlight - this.inFlight.size;
        if (free <= 0 || this.closed) break;
        const claimed = await claimDue(this.db, {
          limit: free,
          leaseMs: this.settings.claimLeaseMs,
          busyEndpoints: this.perEndpoint,
          perEndpoint: this.settings.maxInFlightPerEndpoint,
        });
        if (this.closed) {
          // Claimed while closing: left to the lease, like an abandoned attempt.
          break;
        }
        for (const delivery of claimed) this.launch(delivery);
        if (claimed.length === free) this.again = true;
      } while (this.again && !this.closed);
    } catch (err) {
      this.logger.warn({ err }, 'could not claim due webhook deliveries; trying again at the next poll');
    } finally {
      this.passing = false;
    }
  }
}

/** Starts the sending loop (SendingLoop): it polls every pollIntervalMs and looks for due deliveries at once. */
export function startSender(db: Db, logger: Logger, secrets: SecretBox, agent: Agent, settings: SenderSettings): Sender {
  const loop = new SendingLoop(db, logger, secrets, agent, settings);
  loop.wake();
  return loop;
}
