import { describe, expect, it } from '@jest/globals';
import { defineOutboxTable, outboxEnvelope, outboxGaugeNames, relayBackoffMs } from '../src/index.js';

describe('relayBackoffMs', () => {
  it('doubles from the minimum up to the maximum, within the upper half of each step', () => {
    expect(relayBackoffMs(1, 100, 10_000, () => 0)).toBe(50);
    expect(relayBackoffMs(1, 100, 10_000, () => 1)).toBe(100);
    expect(relayBackoffMs(3, 100, 10_000, () => 1)).toBe(400);
    expect(relayBackoffMs(30, 100, 10_000, () => 1)).toBe(10_000);
    expect(relayBackoffMs(30, 100, 10_000, () => 0)).toBe(5_000);
  });
});

describe('defineOutboxTable', () => {
  it('accepts a plain identifier and refuses anything that could change the SQL it is put into', () => {
    expect(defineOutboxTable('keys_outbox', 1)).toEqual({ name: 'keys_outbox', lockKey: 1 });
    expect(() => defineOutboxTable('outbox; DROP TABLE x', 1)).toThrow(/identifier/);
    expect(() => defineOutboxTable('Outbox', 1)).toThrow(/identifier/);
    expect(() => defineOutboxTable('outbox', 1.5)).toThrow(/lock key/);
  });
});

describe('outboxEnvelope', () => {
  const row = {
    id: 7,
    eventId: 'e-1',
    userId: 3,
    type: 'x.v1',
    routingKey: 'x',
    payload: { a: 1 },
    occurredAt: new Date(Date.UTC(2026, 10, 26)),
    attempts: 0,
    traceContext: null,
  };
  it('adds the row id as the sequence only when asked', () => {
    expect(outboxEnvelope(row, true)).toEqual({
      id: 'e-1',
      type: 'x.v1',
      occurredAt: '2026-11-26T00:00:00.000Z',
      payload: { a: 1, sequence: 7 },
    });
    expect(outboxEnvelope(row, false).payload).toEqual({ a: 1 });
  });
});

describe('outboxGaugeNames', () => {
  it('names the gauges after the service', () => {
    expect(outboxGaugeNames('keys', 'API key')).toEqual({
      pending: 'keys_outbox_pending_events',
      oldestAge: 'keys_outbox_oldest_pending_age_seconds',
      subject: 'API key',
    });
  });
});
