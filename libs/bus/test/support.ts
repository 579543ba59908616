import { randomUUID } from 'node:crypto';
import { createLogger } from '@acs/logger';
import type { BusEnvelope } from '@acs/bus';

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
