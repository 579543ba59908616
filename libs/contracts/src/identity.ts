import { z } from 'zod';

// Shapes the spec fixes for the identity endpoints (service-interface.md, "Resources and their fields").

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

export const registerRequestSchema = z.object({
  email: z.string().email(),
  password: z.string(),
  firstName: z.string(),
  lastName: z.string(),
});

export const apiKeyCreateRequestSchema = z.object({
  name: z.string().describe('label of the key'),
  scopes: z.string().describe('scope names separated by single spaces'),
});

export const apiKeyCreateResponseSchema = z.object({
  key: z.string().describe('the API key, <prefix>_<live|test>_<identifier>'),
  secret: z.string().describe('the API secret; returned only at creation and never again'),
});
