import { ALL_SCOPES, SYSTEM_SCOPE, grantsScope, hashSecret, type KeyEnvironment } from '@acs/auth';
import type { Cache } from '@acs/cache';
import { apiKeyCacheKey, authzCacheKey, type ApiKeyCacheRecord, type RateLimitWindow, type RateLimits } from '@acs/contracts';
import type { Logger } from '@acs/logger';
import type { LimitRequest } from '../auth/api-key-auth.js';
import type { RouteSpec } from '../routing/route-table.js';
import { LocalGcra, type LimitVerdict } from './gcra.js';
import { READ_AND_LIMIT, REFUND, rateLimitCacheKey } from './limit-script.js';

export interface RateLimitSettings {
  /** RATE_LIMITS_LIVE / RATE_LIMITS_TEST: for keys without their own list; null: none. */
  defaults: Record<KeyEnvironment, RateLimits | null>;
  /** GATEWAY_REPLICAS: while Redis is unreachable each replica admits 1/replicas of every window. */
  replicas: number;
}

/** How a verdict was reached, so a request refused later by another check can be given back where it was counted. */
export type CountedIn = 'redis' | 'local' | 'local-share';

const windowsArg = (windows: RateLimits | null): string => (windows ?? []).map((w) => `${w.limit}:${w.windowSeconds}`).join(',');

/**
 * Per-key rate limits (issue 16). Normally the decision is already made by the time the gateway's own
 * checks pass: the READ_AND_LIMIT script counted the request in the same Redis round trip that read the
 * key (limit-script.ts). This class holds what the script needs per route, picks a key's windows, and
 * covers the cases the script could not decide:
 * - the key record was not in Redis (the keys service refilled it): the script is run once more;
 * - Redis is unreachable: an in-process GCRA at this replica's share (1/GATEWAY_REPLICAS of each limit),
 *   so a client never runs unlimited and is never refused by everyone;
 * - an in-process cache (the embedded default, one process): the in-process GCRA at full share.
 */
export class RateLimiter {
  private readonly requests = new Map<RouteSpec, LimitRequest>();
  private readonly defaultArgs: Record<KeyEnvironment, string>;
  private readonly local = new LocalGcra();
  private readonly share: number;

  constructor(
    private readonly cache: Cache,
    private readonly settings: RateLimitSettings,
    private readonly logger: Logger,
  ) {
    this.defaultArgs = { live: windowsArg(settings.defaults.live), test: windowsArg(settings.defaults.test) };
    this.share = 1 / settings.replicas;
  }

  /** The script's arguments for a route (made once per route). */
  requestFor(route: RouteSpec): LimitRequest {
    let request = this.requests.get(route);
    if (!request) {
      const granting = ALL_SCOPES.filter((scope) => grantsScope([scope], route.scope));
      request = {
        grantingScopes: ` ${granting.join(' ')} `,
        minRole: route.user.kind === 'user' ? String(route.user.minRole) : '',
        defaults: this.defaultArgs,
      };
      this.requests.set(route, request);
    }
    return request;
  }

  /** The windows that apply to a key; null when it is not limited (system:full-access, or no list and no default). */
  windowsFor(record: ApiKeyCacheRecord, environment: KeyEnvironment): readonly RateLimitWindow[] | null {
    if (record.scopes.includes(SYSTEM_SCOPE)) return null;
    const windows = record.rateLimits ?? this.settings.defaults[environment];
    return windows && windows.length > 0 ? windows : null;
  }

  /**
   * A decision for a request the script did not count. `cacheDown`: Redis failed on this request's read.
   * `retry`: the script's arguments, to run it once more when the key record was missing from Redis.
   */
  async decide(
    apiKey: string,
    record: ApiKeyCacheRecord,
    windows: readonly RateLimitWindow[],
    cacheDown: boolean,
    retry: { request: LimitRequest; secret: string; environment: KeyEnvironment; userId: number | undefined },
  ): Promise<{ verdict: LimitVerdict; counted: CountedIn }> {
    if (this.cache.evalScript && !cacheDown) {
      try {
        const keys =
          retry.userId === undefined
            ? [apiKeyCacheKey(apiKey), rateLimitCacheKey(apiKey)]
            : [apiKeyCacheKey(apiKey), rateLimitCacheKey(apiKey), authzCacheKey(retry.userId)];
        const reply = await this.cache.evalScript(READ_AND_LIMIT, keys, [
          hashSecret(retry.secret),
          retry.request.grantingScopes,
          retry.request.minRole,
          retry.request.defaults[retry.environment],
        ]);
        if (reply.length >= 7) {
          const verdict: LimitVerdict = {
            admitted: reply[2] === 1,
            window: (reply[3] as number) - 1,
            remaining: reply[4] as number,
            resetSeconds: reply[5] as number,
            retryAfterSeconds: reply[6] as number,
          };
          return { verdict, counted: 'redis' };
        }
      } catch (err) {
        this.logger.warn({ err }, "rate limit: Redis unavailable; counting at this replica's share");
      }
      return { verdict: this.local.take(localId(record, windows), windows, this.share), counted: 'local-share' };
    }
    if (!this.cache.evalScript) return { verdict: this.local.take(localId(record, windows), windows), counted: 'local' };
    return { verdict: this.local.take(localId(record, windows), windows, this.share), counted: 'local-share' };
  }

  /** Gives back a request that was counted and then refused by a later check (a token that failed verification). */
  refund(apiKey: string, record: ApiKeyCacheRecord, windows: readonly RateLimitWindow[], counted: CountedIn): void {
    if (counted === 'redis') {
      this.cache
        .evalScript?.(REFUND, [rateLimitCacheKey(apiKey)], [windowsArg(windows as RateLimits)])
        .catch((err: unknown) => this.logger.warn({ err }, 'rate limit refund failed'));
    } else {
      this.local.refund(localId(record, windows), windows, counted === 'local' ? 1 : this.share);
    }
  }
}

/** In-process state is per key and list, so a changed list starts afresh (as its new fields do in Redis). */
const localId = (record: ApiKeyCacheRecord, windows: readonly RateLimitWindow[]): string =>
  `${record.id}|${windowsArg(windows as RateLimits)}`;
