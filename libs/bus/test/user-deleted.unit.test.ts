import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { consumeUserDeleted, createMemoryBus } from '@acs/bus';
import { USER_DELETED_EVENT_TYPE, USER_DELETED_ROUTING_KEY } from '@acs/contracts';
import { uniqueName, waitFor } from '@acs/testing';
import { buildEnvelope, captureLogs } from './support.js';

const deleted = (userId: number) => {
  const id = randomUUID();
  const occurredAt = new Date().toISOString();
  return buildEnvelope({ id, type: USER_DELETED_EVENT_TYPE, occurredAt, payload: { eventId: id, userId, occurredAt } });
};

describe('consumeUserDeleted', () => {
  it("erases the user of each user.deleted, leaves the family's other events alone, and dead-letters a malformed one", async () => {
    const bus = createMemoryBus({ logger: captureLogs('user-deleted').logger, delayScale: 0.001 });
    const queue = uniqueName('user_deleted');
    const erased: number[] = [];
    const subscription = await consumeUserDeleted(bus, queue, async (userId) => {
      erased.push(userId);
    });
    try {
      await bus.publish('user.renamed', buildEnvelope({ type: 'user.renamed.v1', payload: { userId: 41 } }));
      await bus.publish(USER_DELETED_ROUTING_KEY, deleted(42));
      await bus.publish(USER_DELETED_ROUTING_KEY, buildEnvelope({ type: USER_DELETED_EVENT_TYPE, payload: { userId: 'x' } }));
      await waitFor('the malformed user.deleted dead-lettered', () => bus.deadLetters(queue).length === 1);
      expect(erased).toEqual([42]);
    } finally {
      await subscription.close();
      await bus.close();
    }
  });
});
