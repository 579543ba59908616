import { userClaimsSchema } from '@acs/contracts';

/** What the overview shows about the signed-in user. */
export interface AccountSummary {
  userId: string;
  email: string;
  /** Effective role when the token was issued (0-3). */
  role: number;
  planType: number;
  /** Unix seconds; present only while a trial runs. */
  trialExpiresAt: number | null;
  /** Unix seconds: when this sign-in ends. */
  expiresAt: number;
}

/**
 * Reads the JWT's claims for display. No signature check here: the token came to us from the
 * gateway and has since lived only inside our own authenticated encryption, and every call that
 * acts on the account is checked by the gateway anyway.
 */
export function summarizeToken(token: string): AccountSummary | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const claims = userClaimsSchema.safeParse(json);
  if (!claims.success) return null;
  const c = claims.data;
  return {
    userId: c.sub,
    email: c.email,
    role: c.role,
    planType: c.plan_type,
    trialExpiresAt: c.trial_expires_at ?? null,
    expiresAt: c.exp,
  };
}
