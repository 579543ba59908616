import { z } from 'zod';
import { busEventSchema } from './bus-event.js';

// Leaving (issue 32, item 5): the signed-in user deletes their account after re-authenticating,
// and every service that holds something of theirs learns it from one event on the bus.

export const deleteAccountRequestSchema = z.object({
  password: z.string().min(1).max(1024).describe('the current password (re-authentication)'),
  code: z
    .string()
    .regex(/^[0-9]{6}$/, 'expected the 6 digits the authenticator app shows')
    .optional()
    .describe('the current two-factor code; required when two-factor sign-in is on'),
});

export const deleteAccountResponseSchema = z.object({
  deleted: z.literal(true),
  endedSessions: z.number().int().min(0).describe('how many sessions were ended (every one, the calling one too)'),
});

/**
 * `user.deleted.v1`: identity publishes it (through its outbox, in the deletion's transaction);
 * billing ends the user's subscriptions, keys revokes every key of the user, device erases the
 * user's devices. Carries the id only: the personal data is already gone when it is published.
 */
export const USER_DELETED_EVENT_TYPE = 'user.deleted.v1';
export const USER_DELETED_ROUTING_KEY = 'user.deleted';
/** What a consumer binds to receive it (and later versions of it). */
export const USER_EVENTS_BINDING = 'user.*';

const userDeletedPayloadSchema = z.object({
  eventId: z.uuid(),
  userId: z.number().int().positive(),
  occurredAt: z.iso.datetime({ offset: true }),
});

export const userDeletedEventSchema = busEventSchema([USER_DELETED_EVENT_TYPE], userDeletedPayloadSchema);
export type UserDeletedEvent = z.infer<typeof userDeletedEventSchema>;

/**
 * What a consumer of `user.*` reads from a message: the deleted user's id, or null for another
 * `user.*` event it does not act on (a later type: acknowledged, not retried). A malformed
 * `user.deleted.v1` throws, so the bus retries it and then parks it in the dead-letter queue.
 */
export function deletedUserIdOf(message: { type: string }): number | null {
  if (message.type !== USER_DELETED_EVENT_TYPE) return null;
  const parsed = userDeletedEventSchema.safeParse(message);
  if (!parsed.success) throw new Error(`invalid ${USER_DELETED_EVENT_TYPE} event: ${parsed.error.issues[0]?.message ?? 'unknown'}`);
  return parsed.data.payload.userId;
}
