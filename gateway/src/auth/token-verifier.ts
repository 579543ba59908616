import { decodeProtectedHeader, jwtVerify } from 'jose';
import { JWT_ALGORITHM, userClaimsSchema } from '@acs/contracts';
import type { JwksStore } from './jwks-store.js';

export interface VerifiedToken {
  userId: number;
  /** Unix seconds. */
  exp: number;
  /** The session the token names (its `sid`); absent in tokens issued before sessions. */
  sessionId?: string;
}

const MAX_TOKEN_LENGTH = 4096;

/**
 * Verifies user JWTs (signature by `kid`, algorithm pinned to EdDSA, expiry, issuer, audience,
 * the spec's claims). jose's Ed25519 verification is the costliest step of a user request (docs/performance.md), so verified tokens are
 * remembered, keyed by the exact token string, until their own expiry:
 * - only successes are remembered, so a cached entry can never turn a failure into a success;
 * - a tampered token is a different string, so it is verified afresh (and fails);
 * - an entry past `exp` is refused and dropped;
 * - the whole cache is dropped when the identity keys change (a removed key stops its tokens).
 * Bounded: past `maxEntries` the oldest entry goes.
 */
export class TokenVerifier {
  private readonly verified = new Map<string, VerifiedToken>();

  constructor(
    private readonly keys: JwksStore,
    private readonly options: { issuer: string; audience: string; maxEntries: number; nowSeconds?: () => number },
  ) {
    keys.onChange = () => this.verified.clear();
  }

  private now(): number {
    return this.options.nowSeconds ? this.options.nowSeconds() : Math.floor(Date.now() / 1000);
  }

  /**
   * The answer for a token verified before, without waiting: the user while the token is unexpired,
   * null once it has expired, undefined when it was never verified (call verify()). Tokens are
   * presented again and again, so this is the gateway's usual path.
   */
  remembered(token: string): VerifiedToken | null | undefined {
    const cached = this.verified.get(token);
    if (cached === undefined) return undefined;
    if (cached.exp > this.now()) return cached;
    this.verified.delete(token);
    return null;
  }

  /** The verified user, or null for any invalid token. Throws only when identity's keys cannot be had (503). */
  async verify(token: string): Promise<VerifiedToken | null> {
    const remembered = this.remembered(token);
    if (remembered !== undefined) return remembered;
    if (token.length > MAX_TOKEN_LENGTH) return null;
    let kid: unknown;
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== JWT_ALGORITHM) return null;
      kid = header.kid;
    } catch {
      return null;
    }
    if (typeof kid !== 'string') return null;
    await this.keys.getKeySet();
    if (!this.keys.hasKid(kid)) await this.keys.refreshForUnknownKid();
    const keySet = await this.keys.getKeySet();
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        algorithms: [JWT_ALGORITHM],
        issuer: this.options.issuer,
        audience: this.options.audience,
        requiredClaims: ['sub', 'exp', 'iat'],
        currentDate: new Date(this.now() * 1000),
      }));
    } catch {
      return null;
    }
    const claims = userClaimsSchema.safeParse(payload);
    if (!claims.success) return null;
    const result: VerifiedToken = { userId: Number(claims.data.sub), exp: claims.data.exp };
    if (claims.data.sid !== undefined) result.sessionId = claims.data.sid;
    this.remember(token, result);
    return result;
  }

  get size(): number {
    return this.verified.size;
  }

  private remember(token: string, result: VerifiedToken): void {
    if (this.verified.size >= this.options.maxEntries) {
      const oldest = this.verified.keys().next();
      if (!oldest.done) this.verified.delete(oldest.value);
    }
    this.verified.set(token, result);
  }
}
