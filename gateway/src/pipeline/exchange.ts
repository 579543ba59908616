import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InternalContext, KeyEnvironment } from '@acs/auth';
import type { AuthzRecord } from '@acs/contracts';
import type { ClientAddressResolver } from '@acs/http';
import type { Logger } from '@acs/logger';
import type { RouteRecorder } from '@acs/metrics';
import type { KeyRecord } from '../auth/key-record.js';
import type { KeyUsageRecorder } from '../auth/key-usage-recorder.js';
import type { RecordReader } from '../auth/record-reader.js';
import type { TokenVerifier, VerifiedToken } from '../auth/token-verifier.js';
import type { Counted } from '../limits/counted.js';
import type { QuotaDecision, QuotaLimiter } from '../limits/quota-limiter.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { LimitVerdict } from '../limits/sliding-window.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { Upstreams } from '../proxy/upstreams.js';
import type { RouteMatch } from '@acs/http';
import type { SessionSeenReporter } from '../auth/session-seen.js';
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import type { PendingAnswer } from '../idempotency/pending-answer.js';
import type { RouteSpec } from '../routing/route-table.js';
import type { RequestTrace } from '../tracing/request-trace.js';

/** What the steps share for the gateway's lifetime. */
export interface PipelineDeps {
  records: RecordReader;
  /** Null while the identity service is not deployed: user routes then answer 503 to a presented token. */
  tokens: TokenVerifier | null;
  /** Tells identity, every few minutes per session, that a session is in use (null without identity). */
  sessionsSeen?: SessionSeenReporter | null;
  usage: KeyUsageRecorder;
  limiter: RateLimiter;
  quota: QuotaLimiter;
  /** Each with the key that signs the contexts sent to it (docs/security.md). */
  upstreams: Upstreams;
  /** The client's address for the signed context (X-Forwarded-For from trusted proxies only). */
  clientAddress: ClientAddressResolver;
  maxBodyBytes: number;
  /** Idempotency-Key records (issue 31): Redis, or the process's own map with the embedded cache. */
  idempotency: IdempotencyStore;
  logger: Logger;
  metrics: GatewayMetrics;
}

/**
 * One /api request as it moves through the steps (pipeline.ts); each step reads what the earlier ones
 * filled in. Made by newExchange with every field present, so every exchange has one shape.
 */
export interface ApiExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly url: string;
  readonly path: string;
  readonly method: string;
  readonly found: RouteMatch<RouteSpec>;
  readonly recorder: RouteRecorder;
  readonly startedMs: number;
  /** The request's spans; null while tracing is off. */
  readonly trace: RequestTrace | null;
  /** The X-Api-Key and X-Api-Secret headers once readRecords found both well-formed. */
  apiKey: string;
  secret: string;
  environment: KeyEnvironment;
  /** The Bearer token of a user route, unverified until authorizeUser. */
  token: string | null;
  /** The user the token claims (unverified): names the authorization record read with the key. */
  claimedUserId: number | undefined;
  /** The token's earlier verification, if any: the user, null once expired, undefined when never verified. */
  remembered: VerifiedToken | null | undefined;
  /** The key record this request read (null: no such key), and the user's authorization record (undefined: not in the cache). */
  record: KeyRecord | null;
  authz: AuthzRecord | null | undefined;
  /** A record whose secret check already ran for this request, and its result (the guess and the answer often share one). */
  secretCheckedOn: KeyRecord | null;
  secretAccepted: boolean;
  /** The key's usage counts this request's answer (its key and secret passed). */
  keyPassed: boolean;
  /** The limit decision, once made (with the read, or by applyLimits). */
  limit: LimitVerdict | null;
  /** The key owner's plan quota decision, once made (with the read, or by applyLimits); null: none yet or no quota. */
  quota: QuotaDecision | null;
  /** The key owner's record when the read carried it apart from the user's (undefined: not read, or a miss). */
  owner: AuthzRecord | null | undefined;
  /** An admitted request's RateLimit headers (applyLimits), written with whichever answer it gets; null: none. */
  limitHeaders: Record<string, string> | null;
  /** Where the request was counted (limits, quota), so a refusal gives it back; empty when it was not. */
  counted: Counted[];
  cacheDown: boolean;
  /** The client's address once resolved (by the allow-list check, or authorizeRoute); null: not yet. */
  clientIp: string | null;
  /** Set by authorizeRoute. */
  route: RouteSpec | null;
  context: Omit<InternalContext, 'expiresAt'> | null;
  /** The Idempotency-Key lease this request holds and its answer to keep; null without the header (claimIdempotency). */
  idempotency: PendingAnswer | null;
}

export function newExchange(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  url: string,
  path: string,
  method: string,
  found: RouteMatch<RouteSpec>,
  recorder: RouteRecorder,
  startedMs: number,
  trace: RequestTrace | null,
): ApiExchange {
  return {
    req,
    res,
    requestId,
    url,
    path,
    method,
    found,
    recorder,
    startedMs,
    trace,
    apiKey: '',
    secret: '',
    environment: 'live',
    token: null,
    claimedUserId: undefined,
    remembered: undefined,
    record: null,
    authz: null,
    secretCheckedOn: null,
    secretAccepted: false,
    keyPassed: false,
    limit: null,
    quota: null,
    owner: undefined,
    limitHeaders: null,
    counted: [],
    cacheDown: false,
    clientIp: null,
    route: null,
    context: null,
    idempotency: null,
  };
}

/** A step either refuses (the answer is written: 'answered') or forwards ('forwarded'), or lets the request go on (undefined). */
export type Outcome = 'answered' | 'forwarded';
export type Step = Outcome | undefined;
