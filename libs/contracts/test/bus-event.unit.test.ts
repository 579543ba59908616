import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { busEventSchema, routingKeysOf } from '../src/bus-event.js';
import { API_KEY_ROUTING_KEYS } from '../src/api-key-events.js';
import { SUBSCRIPTION_ROUTING_KEYS } from '../src/subscription-events.js';

const schema = busEventSchema(['thing.done.v1'], z.object({ eventId: z.uuid() }));
const id = '3f1c2b9e-8a44-4f5e-9d0e-0c6c2a1b7e11';

describe('busEventSchema', () => {
  it('accepts an envelope whose payload repeats its id, and refuses one whose payload names another', () => {
    const event = { id, type: 'thing.done.v1', occurredAt: '2026-11-26T22:00:00Z', payload: { eventId: id } };
    expect(schema.parse(event)).toEqual(event);
    const other = schema.safeParse({ ...event, payload: { eventId: '9b1c2b9e-8a44-4f5e-9d0e-0c6c2a1b7e12' } });
    expect(other.success).toBe(false);
    expect(other.error?.issues[0]?.path).toEqual(['payload', 'eventId']);
  });

  it('refuses a type it was not given', () => {
    expect(schema.safeParse({ id, type: 'thing.undone.v1', occurredAt: '2026-11-26T22:00:00Z', payload: { eventId: id } }).success).toBe(
      false,
    );
  });
});

describe('routingKeysOf', () => {
  it('drops the version of each type, kind by kind', () => {
    expect(API_KEY_ROUTING_KEYS).toEqual({
      created: 'api_key.created',
      revoked: 'api_key.revoked',
      rolled: 'api_key.rolled',
      expiring: 'api_key.expiring',
      expired: 'api_key.expired',
      exposed: 'api_key.exposed',
    });
    expect(SUBSCRIPTION_ROUTING_KEYS).toEqual({
      activated: 'subscription.activated',
      changed: 'subscription.changed',
      canceled: 'subscription.canceled',
    });
    expect(routingKeysOf({ done: 'thing.done.v12' })).toEqual({ done: 'thing.done' });
  });
});
