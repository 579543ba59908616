import { SignJWT } from 'jose';
import { JWT_ALGORITHM, currentPlanType, type UserClaims } from '@acs/contracts';
import { accessAt, type User } from './user.js';
import type { IdentityDeps } from './deps.js';

export interface IssuedToken {
  token: string;
  /** Unix seconds. */
  expiresAt: number;
}

/**
 * The spec's claims: sub, email, role (effective now), plan_type, and trial_expires_at only while
 * a trial is active. The gateway does not trust `role` beyond the moment of issue: it recomputes
 * the role per request from the authorization record (docs/architecture.md, decision 3).
 */
export async function issueToken(
  { signer, settings }: Pick<IdentityDeps, 'signer' | 'settings'>,
  user: User,
  now: number,
  sessionId?: string,
): Promise<IssuedToken> {
  const { role, onTrial, record } = accessAt(user, now);
  const claims: Pick<UserClaims, 'email' | 'role' | 'plan_type' | 'trial_expires_at'> = {
    email: user.email,
    role,
    plan_type: currentPlanType(record, now),
  };
  if (onTrial && record.trialEndsAt !== null) claims.trial_expires_at = record.trialEndsAt;
  // Our own claim beside the spec's: the session this token belongs to, so ending it refuses the token.
  const sid: Pick<UserClaims, 'sid'> = sessionId === undefined ? {} : { sid: sessionId };
  const expiresAt = now + settings.jwtTtlSeconds;
  const token = await new SignJWT({ ...claims, ...sid })
    .setProtectedHeader({ alg: JWT_ALGORITHM, kid: signer.kid, typ: 'JWT' })
    .setSubject(String(user.id))
    .setIssuer(settings.jwtIssuer)
    .setAudience(settings.jwtAudience)
    .setIssuedAt(now)
    .setExpirationTime(expiresAt)
    .sign(signer.privateKey);
  return { token, expiresAt };
}
