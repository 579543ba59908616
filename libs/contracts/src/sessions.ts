import { z } from 'zod';

// The platform's sessions (issue 32): every sign-in is one, named by the token's `sid` claim.

/** A session id: 12 base64url characters (72 random bits), short because ended ones ride in the authorization record. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{12}$/;

export const sessionViewSchema = z.object({
  id: z.string().describe('the session id (the `sid` claim of its token)'),
  device: z.string().describe('a label made from the User-Agent of the sign-in, e.g. "Firefox on Linux"'),
  address: z.string().nullable().describe('the client address of the sign-in as the gateway saw it'),
  createdAt: z.string().describe('ISO 8601 UTC time of the sign-in'),
  lastSeenAt: z.string().describe('ISO 8601 UTC; updated at most every few minutes, not on every request'),
  expiresAt: z.string().describe('ISO 8601 UTC expiry of the session token'),
  endedAt: z.string().nullable().describe('ISO 8601 UTC time the session was ended; null while it is live'),
  current: z.boolean().describe('true for the session of the token making this request'),
});
export type SessionView = z.infer<typeof sessionViewSchema>;

export const sessionListSchema = z.object({
  items: z.array(sessionViewSchema).describe('live sessions (not ended, token not expired), newest first'),
});

export const endOtherSessionsResponseSchema = z.object({
  ended: z.number().int().min(0).describe('how many sessions were ended'),
});

/** Gateway-to-identity, at most every few minutes per session and replica: the session was used (its last seen). */
export const SESSION_SEEN_PATH = '/internal/sessions/seen';
export const sessionSeenRequestSchema = z.object({ userId: z.number().int().positive(), sessionId: z.string().regex(SESSION_ID_PATTERN) });
export const sessionSeenResponseSchema = z.object({ ok: z.literal(true) });
