import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { JWKS_PATH } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { Upstream } from '../proxy/upstreams.js';
import { internalCall } from './internal-call.js';

const jwksSchema = z.object({ keys: z.array(z.looseObject({ kid: z.string(), kty: z.string() })) });

const REFRESH_EVERY_MS = 5 * 60_000;
/** An unknown `kid` may mean a rotation: refetch, but at most this often (tokens with made-up kids are cheap to send). */
const MIN_REFETCH_MS = 10_000;

/**
 * The identity service's public keys, fetched over the signed internal channel and kept in
 * memory. Served again, publicly, at /.well-known/jwks.json.
 */
export class JwksStore {
  private keySet: JWTVerifyGetKey | null = null;
  private json: string | null = null;
  private kids = new Set<string>();
  private fetchedAt = 0;
  private inFlight: Promise<void> | null = null;
  /** Called when the key set changes, so verified-token caches can forget tokens of removed keys. */
  onChange: () => void = () => {};

  constructor(
    private readonly identity: Upstream,
    private readonly internalSecret: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key set, loading it on first use; throws (503) when identity cannot be reached and no keys are known. */
  async getKeySet(): Promise<JWTVerifyGetKey> {
    if (!this.keySet || this.now() - this.fetchedAt > REFRESH_EVERY_MS)
      await this.refresh().catch((err: unknown) => this.onRefreshError(err));
    if (!this.keySet) throw new Error('unreachable: refresh either sets the key set or throws');
    return this.keySet;
  }

  hasKid(kid: string): boolean {
    return this.kids.has(kid);
  }

  /** Refetch for an unknown kid, rate-limited. */
  async refreshForUnknownKid(): Promise<void> {
    if (this.now() - this.fetchedAt < MIN_REFETCH_MS) return;
    await this.refresh().catch((err: unknown) => this.onRefreshError(err));
  }

  async publicJson(): Promise<string> {
    await this.getKeySet();
    return this.json!;
  }

  private onRefreshError(err: unknown): void {
    // Keep serving the keys we have; without any, nothing can be verified and callers get 503.
    if (!this.keySet) throw err;
    this.logger.warn({ err }, 'could not refresh the identity service keys; keeping the previous set');
  }

  private refresh(): Promise<void> {
    this.inFlight ??= (async () => {
      try {
        const jwks = await internalCall(this.identity, this.internalSecret, 'GET', JWKS_PATH, 'gateway-jwks', jwksSchema);
        const json = JSON.stringify(jwks);
        this.fetchedAt = this.now();
        if (json === this.json) return;
        this.keySet = createLocalJWKSet(jwks as JSONWebKeySet);
        this.json = json;
        this.kids = new Set(jwks.keys.map((key) => key.kid));
        this.onChange();
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }
}
