import { describe, expect, it } from '@jest/globals';
import { decodeEnvelope, validateEnvelope } from '@acs/bus';
import { buildEnvelope } from './support.js';

describe('envelope', () => {
  it('accepts a versioned event with an ISO timestamp (UTC or offset)', () => {
    expect(validateEnvelope(buildEnvelope()).ok).toBe(true);
    expect(validateEnvelope(buildEnvelope({ occurredAt: '2025-01-01T10:00:00+02:00' })).ok).toBe(true);
    expect(validateEnvelope(buildEnvelope({ payload: null })).ok).toBe(true);
  });

  it('refuses unversioned types, bad timestamps, missing fields', () => {
    expect(validateEnvelope(buildEnvelope({ type: 'subscription.activated' }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('type'),
    });
    expect(validateEnvelope(buildEnvelope({ occurredAt: 'yesterday' }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('occurredAt'),
    });
    expect(validateEnvelope({ id: 'a', type: 'a.v1', occurredAt: new Date().toISOString() })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('payload'),
    });
    expect(validateEnvelope('text').ok).toBe(false);
  });

  it('decodes bytes without ever throwing', () => {
    const envelope = buildEnvelope();
    expect(decodeEnvelope(Buffer.from(JSON.stringify(envelope)))).toEqual({ ok: true, envelope });
    expect(decodeEnvelope(Buffer.from([0xff, 0x00, 0x7b]))).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid JSON/) });
    expect(decodeEnvelope('null')).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid envelope/) });
  });
});
