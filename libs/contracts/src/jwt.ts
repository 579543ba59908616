import { z } from 'zod';

/** Signing algorithm: Ed25519 signatures, small and fast to verify. The gateway accepts no other. */
export const JWT_ALGORITHM = 'EdDSA';
export const JWT_ISSUER_DEFAULT = 'acs-identity';
export const JWT_AUDIENCE_DEFAULT = 'acs-api';
export const JWKS_PATH = '/.well-known/jwks.json';

/** The spec's claims (docs/api-contract.md, "Users, roles and tokens"), the registered ones jose checks, and our `sid`. */
export const userClaimsSchema = z.object({
  sub: z.string().regex(/^[1-9][0-9]{0,15}$/),
  email: z.string(),
  role: z.number().int().min(0).max(3),
  plan_type: z.number().int().min(0).max(3),
  trial_expires_at: z.number().int().optional(),
  /** The platform's own claim (not the spec's): the session this sign-in opened; absent in tokens issued before sessions. */
  sid: z.string().max(64).optional(),
  iss: z.string(),
  aud: z.union([z.string(), z.array(z.string())]),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type UserClaims = z.infer<typeof userClaimsSchema>;
