import { describe, expect, it } from '@jest/globals';
import { publishProperties } from '../src/amqp/publish-properties.js';

describe('publishProperties', () => {
  it('makes the event persistent JSON named by its envelope, stamped in whole seconds, with the trace headers', () => {
    const envelope = { id: 'e1', type: 'billing.subscription.activated.v1', occurredAt: '2026-01-01T00:00:00.000Z', payload: {} };
    expect(publishProperties(envelope, { traceparent: '00-abc-def-01' }, 1_700_000_000_999)).toEqual({
      persistent: true,
      contentType: 'application/json',
      messageId: 'e1',
      type: 'billing.subscription.activated.v1',
      timestamp: 1_700_000_000,
      headers: { traceparent: '00-abc-def-01' },
    });
  });
});
