import { randomUUID } from 'node:crypto';
import { createLogger } from '@acs/logger';
import type { BusEnvelope } from '@acs/bus';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Truthy<T> = Exclude<T, null | undefined | false | 0 | ''>;

/** Polls until `probe` returns something truthy; fails with `what` so a timeout says what never happened. */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(20);
  }
}

export function buildEnvelope(overrides: Partial<BusEnvelope> = {}): BusEnvelope {
  return {
    id: randomUUID(),
    type: 'subscription.activated.v1',
    occurredAt: new Date().toISOString(),
    payload: { userId: randomUUID(), plan: 'pro', cardToken: 'tok_secret_do_not_log' },
    ...overrides,
  };
}

export interface CapturedLogs {
  lines: string[];
  logger: ReturnType<typeof createLogger>;
}

export function captureLogs(name: string): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger({ name, level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return { lines, logger };
}
