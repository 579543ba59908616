import { describe, expect, it } from '@jest/globals';
import { defineOutboxTable, relayBackoffMs } from '../src/index.js';

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
