import type { Bus, BusEnvelope } from '@acs/bus';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { context, trace, type Context } from '@opentelemetry/api';
import { relayBackoffMs } from './backoff.js';
import type { OutboxRow } from './outbox-repository.js';
import type { OutboxTable } from './outbox-table.js';
import { errorText, relayPass, type PassOutcome, type RelayPassOptions } from './relay-pass.js';

export interface OutboxRelayOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  table: OutboxTable;
  /** The envelope exactly as consumers parse it; a row it refuses fails the pass (and is retried, logged). */
  toEnvelope(row: OutboxRow): BusEnvelope;
  /** Poll even when nothing wakes the relay (rows written by another replica or a CLI, a missed wake). */
  pollIntervalMs: number;
  /** Backoff after a failed publish: retryMinMs, doubling up to retryMaxMs, with jitter. */
  retryMinMs: number;
  retryMaxMs: number;
  batchSize?: number;
}

export interface OutboxRelay {
  /** Publish soon: a transaction just committed outbox rows. */
  wake(): void;
  /** Consecutive failed passes (0 when the last pass published everything it found). */
  readonly failures: number;
  /** Stops polling and waits for a pass in flight. */
  close(): Promise<void>;
}

interface RelayState {
  pass: RelayPassOptions;
  pollIntervalMs: number;
  retryMinMs: number;
  retryMaxMs: number;
  /** The context the relay started in, without its span: a row is published in its own stored trace, or in none, never in that of the request whose wake() scheduled the pass. */
  traceBase: Context;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
  /** A wake arrived during a pass: go again at once. */
  again: boolean;
  failures: number;
  closed: boolean;
}

function schedule(state: RelayState, delayMs: number): void {
  if (state.closed) return;
  if (state.timer) clearTimeout(state.timer);
  state.timer = setTimeout(() => {
    state.timer = null;
    void tick(state);
  }, delayMs);
  state.timer.unref?.();
}

async function runPass(state: RelayState): Promise<PassOutcome> {
  try {
    return await context.with(state.traceBase, () => relayPass(state.pass, state.traceBase));
  } catch (err) {
    state.pass.logger.error({ err: errorText(err) }, 'outbox relay pass failed');
    return 'failed';
  }
}

/** After a pass: back off on failure, else go again at once when there is more, else poll. */
function afterPass(state: RelayState, outcome: PassOutcome): void {
  if (outcome === 'failed') {
    state.failures += 1;
    state.again = false;
    schedule(state, relayBackoffMs(state.failures, state.retryMinMs, state.retryMaxMs));
    return;
  }
  if (state.failures > 0) state.pass.logger.info({ failedPasses: state.failures }, 'outbox relay publishing again');
  state.failures = 0;
  const more = outcome === 'more' || state.again;
  state.again = false;
  schedule(state, more ? 0 : state.pollIntervalMs);
}

async function tick(state: RelayState): Promise<void> {
  if (state.closed) return;
  if (state.running !== null) {
    state.again = true;
    return;
  }
  let outcome: PassOutcome = 'failed';
  state.running = runPass(state).then((result) => {
    outcome = result;
  });
  await state.running;
  state.running = null;
  afterPass(state, outcome);
}

function wake(state: RelayState): void {
  if (state.closed) return;
  if (state.running !== null) {
    state.again = true;
    return;
  }
  // During a backoff a new write waits for the retry: the broker is what is missing.
  if (state.failures === 0) schedule(state, 0);
}

async function closeRelay(state: RelayState): Promise<void> {
  state.closed = true;
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
  await state.running;
}

/**
 * Publishes an outbox table in id order with publisher confirms (bus.publish resolves on the
 * broker's confirm), one relay at a time across replicas (relay-pass.ts), backing off with jitter
 * while the bus fails. Delivery is at least once (docs/architecture.md, decision 4).
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, bus, logger, table, toEnvelope } = options;
  const state: RelayState = {
    pass: { db, bus, logger, table, toEnvelope, batchSize: options.batchSize ?? 100 },
    pollIntervalMs: options.pollIntervalMs,
    retryMinMs: options.retryMinMs,
    retryMaxMs: Math.max(options.retryMinMs, options.retryMaxMs),
    traceBase: trace.deleteSpan(context.active()),
    timer: null,
    running: null,
    again: false,
    failures: 0,
    closed: false,
  };
  schedule(state, 0);
  return {
    wake: () => wake(state),
    get failures() {
      return state.failures;
    },
    close: () => closeRelay(state),
  };
}
