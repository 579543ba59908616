import { z } from 'zod';

// Shapes the spec fixes for the identity endpoints (docs/api-contract.md, "Operations").

export const loginRequestSchema = z.object({
  email: z.string().email(),
  password: z.string().min(1),
});

export const loginResponseSchema = z.object({
  token: z.string().describe('signed JWT'),
  expiresAt: z.string().describe('ISO 8601 UTC timestamp of token expiry'),
  user: z.object({
    id: z.number().int(),
    email: z.string(),
    role: z.number().int().min(0).max(3).describe('effective role: 0 Free, 1 Subscriber, 2 Admin, 3 SuperAdmin'),
    isTrialSubscription: z.boolean(),
  }),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const registerRequestSchema = z.object({
  email: z.string().email(),
  password: z.string(),
  firstName: z.string(),
  lastName: z.string(),
});

/** 201 of POST /api/Users/Register (the spec leaves it open): the new user, never the password hash. */
export const registerResponseSchema = z.object({
  id: z.number().int(),
  email: z.string().describe('as registered; unique regardless of case'),
  firstName: z.string(),
  lastName: z.string(),
  role: z.number().int().min(0).max(3).describe('effective role: 1 (Subscriber) during the trial'),
  isTrialSubscription: z.boolean(),
  trialExpiresAt: z.string().nullable().describe('ISO 8601 UTC end of the trial; null without an active trial'),
});
export type RegisterResponse = z.infer<typeof registerResponseSchema>;
