import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { Agent } from 'undici';
import { claimDue, insertAttempt, settleDelivery, type ClaimedDelivery } from '../data-access/deliveries-repository.js';
import { disableEndpoint } from '../data-access/endpoints-repository.js';
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

/** The secrets that sign an attempt: the current one, and the one a rotation replaced while it still signs. */
function liveSecrets(secrets: SecretBox, delivery: ClaimedDelivery, now: Date): string[] {
  const live = [secrets.open(delivery.secretBox)];
  if (delivery.previousSecretBox && delivery.previousSecretEndsAt && delivery.previousSecretEndsAt > now)
    live.push(secrets.open(delivery.previousSecretBox));
  return live;
}

const describeFailure = (result: PostResult): string => (result.status === null ? result.error! : `HTTP ${result.status}`);

/**
 * The loop that sends due deliveries: claims as many as it has free slots for (at most
 * maxInFlight in all and maxInFlightPerEndpoint to one endpoint, so a slow endpoint holds only its
 * own slots), sends each without waiting for the others, records each attempt and settles the
 * delivery: delivered, retried later (full jitter), or given up with its endpoint disabled.
 */
export function startSender(db: Db, logger: Logger, secrets: SecretBox, agent: Agent, settings: SenderSettings): Sender {
  const perEndpoint = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  let passing = false;
  let again = false;
  let closed = false;

  async function settle(delivery: ClaimedDelivery, startedAt: Date, result: PostResult): Promise<void> {
    const now = new Date();
    const outcome =
      result.error === null
        ? ({ kind: 'delivered' } as const)
        : givesUp(delivery.scheduleStartedAt, now, settings.schedule)
          ? ({ kind: 'failed' } as const)
          : ({ kind: 'retry', retryInMs: retryDelayMs(delivery.retryIndex + 1, settings.schedule.delaysMs) } as const);
    await db.transaction(async (tx) => {
      await insertAttempt(tx, { deliveryId: delivery.id, attempt: delivery.attempt, startedAt, ...result });
      const applied = await settleDelivery(tx, delivery.id, delivery.claimToken, outcome, result);
      if (applied && outcome.kind === 'failed') {
        const hours = Math.round(settings.schedule.giveUpAfterMs / 360_000) / 10;
        await disableEndpoint(
          tx,
          delivery.endpointId,
          `Deliveries kept failing for ${hours} h (last attempt: ${describeFailure(result)}); fix the endpoint, then enable it again`,
        );
      }
    });
    if (outcome.kind === 'failed')
      logger.warn({ deliveryId: delivery.id, endpointId: delivery.endpointId }, 'webhook delivery gave up; endpoint disabled');
  }

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
    await settle(delivery, startedAt, result).catch((err: unknown) =>
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
