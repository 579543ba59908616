import { z } from 'zod';

// Password change and reset (issue 32, item 2). The policy (length, common passwords, ...) is
// checked by identity after the shape, with its own message (code weak_password).

export const changePasswordRequestSchema = z.object({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().max(1024),
});

export const changePasswordResponseSchema = z.object({
  endedSessions: z.number().int().min(0).describe('how many other sessions were ended (the calling one stays)'),
});

export const passwordResetRequestSchema = z.object({
  email: z.email().max(254),
});

/** The same answer whether or not the address has an account. */
export const passwordResetRequestedSchema = z.object({
  message: z.string(),
});

export const completePasswordResetRequestSchema = z.object({
  token: z.string().min(1).max(256).describe('the token from the e-mailed link'),
  newPassword: z.string().max(1024),
});

export const completePasswordResetResponseSchema = z.object({
  endedSessions: z.number().int().min(0).describe('how many sessions were ended (every one: sign in with the new password)'),
});
