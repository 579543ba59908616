import { describe, expect, it } from '@jest/globals';
import { canonicalJson, entryHash, GENESIS_HASH } from '../src/audit-hash.js';

const fields = {
  occurredAt: new Date('2026-11-26T20:00:00.123Z'),
  actor: { type: 'user' as const, id: '7', requestId: 'r', clientAddress: '203.0.113.9' },
  change: { action: 'a', targetType: 't', targetId: '1', userId: 7, before: { x: 1 }, after: { x: 2 } },
};

describe('the audit hash', () => {
  it('does not depend on the order jsonb gives keys back in', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":2,"f":1}]},"b":1}');
  });

  it('changes with every field and with the previous hash', () => {
    const base = entryHash(GENESIS_HASH, fields);
    expect(entryHash(GENESIS_HASH, fields)).toBe(base);
    expect(entryHash('1'.repeat(64), fields)).not.toBe(base);
    expect(entryHash(GENESIS_HASH, { ...fields, occurredAt: new Date(fields.occurredAt.getTime() + 1) })).not.toBe(base);
    expect(entryHash(GENESIS_HASH, { ...fields, actor: { ...fields.actor, clientAddress: null } })).not.toBe(base);
    expect(entryHash(GENESIS_HASH, { ...fields, change: { ...fields.change, after: { x: 3 } } })).not.toBe(base);
    expect(entryHash(GENESIS_HASH, { ...fields, change: { ...fields.change, userId: 8 } })).not.toBe(base);
  });
});
