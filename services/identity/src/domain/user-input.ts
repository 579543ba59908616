import { z } from 'zod';

/** RFC 5321 caps a forward path at 256 octets, so an address is at most 254 characters. */
const EMAIL_MAX_LENGTH = 254;
const NAME_MAX_LENGTH = 100;

/** Validated and kept as typed (case included); uniqueness ignores case (the database index on lower(email)). */
const emailSchema = z.email({ error: 'expected an e-mail address' }).max(EMAIL_MAX_LENGTH);

const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(NAME_MAX_LENGTH)
  .regex(/^\P{Cc}*$/u, 'must not contain control characters');

/**
 * POST /api/Users/Register. Types are strict: no coercion, a number or null is a 400.
 *
 * Unknown members (`role`, `accountRole`, `id`, `trialEndsAt`, ...) are IGNORED, not refused:
 * zod drops them, so the parsed input has these four fields and nothing else can reach the
 * insert, which names its columns (and the id is GENERATED ALWAYS). Ignoring rather than a 400
 * keeps sign-up forms that send extra fields (`confirmPassword`, `acceptTerms`) working; either
 * way an attempt to choose a role changes nothing, which the tests check.
 */
export const registerBodySchema = z.object({
  email: emailSchema,
  // The policy (length, common passwords, ...) is checked after the shape, with its own message.
  password: z.string(),
  firstName: nameSchema,
  lastName: nameSchema,
});
export type RegisterInput = z.infer<typeof registerBodySchema>;
