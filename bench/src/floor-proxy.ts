import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type Dispatcher, Pool } from 'undici';
import { secretMatchesHash, signContext } from '@acs/auth';
import { MgetConnection, parseVersioned, type RespReply } from '@acs/cache';

/*
 * The floor of an API gateway under this spec (`npm run bench -- --floor`): a proxy forwarding the way the gateway
 * does (undici's dispatch API, cheaper than the plain proxy's stream call) plus only what the spec makes every
 * limited request do, each the cheapest way we know:
 * - one Redis round trip, batched per event-loop turn on the gateway's own lean connection: the key record
 *   (MGET) and the limiter's counter (INCR) in one write;
 * - the record parsed once (kept while Redis returns the same string), the secret hashed and compared in
 *   constant time against it;
 * - a request id, the signed context (HMAC) for the service, and the request id and RateLimit headers on the answer.
 * The counter moves with the read, so a refused request counts too (the gateway gives its count back; the floor
 * measures admitted requests, where that costs nothing).
 * Nothing else: no routing table, scopes, expiry, roll, quota, usage, metrics, tracing or error shapes. The
 * gateway's CPU over this is its own design's cost; this over the plain proxy is what the spec's minimum costs.
 *
 * FLOOR_PARTS splits that minimum into its parts (`--slices "floor:round-trip,plain"`):
 * - `round-trip`: the Redis round trip and the forward only. No secret check, no RateLimit headers, and the
 *   context signed once and sent again, so the service gets headers of the same size.
 * - `forward`: not even the round trip (the first reply is kept and given to every request after an await, as
 *   Redis would), so it is the floor's forward alone: the request id and undici's dispatch.
 */

interface FloorRecord {
  id: string;
  scopes: string[];
  secretHash: Buffer;
}

const upstream = new Pool(process.env.UPSTREAM_URL!, { connections: 64 });
const internalSecret = process.env.INTERNAL_SECRET!;
const limit = Number(process.env.FLOOR_LIMIT ?? 1_000_000_000);
const redis = new MgetConnection({
  url: process.env.REDIS_URL!,
  connectTimeoutMs: 1000,
  commandTimeoutMs: 1000,
  maxReconnectDelayMs: 1000,
});
const recordKey = process.env.FLOOR_RECORD_KEY!;
const parts = process.env.FLOOR_PARTS ?? 'all';
if (!['all', 'round-trip', 'forward'].includes(parts)) throw new Error(`FLOOR_PARTS: all, round-trip or forward, not ${parts}`);
const checksEverything = parts === 'all';
// One command pair per request; the key and counter names are the bench's one key, so encoded once.
const payload = redis.keyCommand('MGET', [recordKey]) + redis.keyCommand('INCR', [`floor:counter:{${recordKey}}`]);

let lastRaw: string | null = null;
let lastRecord: FloorRecord | null = null;

/** The record in the MGET reply, parsed only when its string changed. */
function recordOf(replies: RespReply[]): FloorRecord | null {
  const raw = (replies[0] as (string | null)[])[0] ?? null;
  if (raw === null) return null;
  if (raw !== lastRaw) {
    const entry = parseVersioned(raw);
    if (entry === null) return null;
    const parsed = JSON.parse(entry.value) as { id: string; scopes: string[]; secretHash: string };
    lastRecord = { id: parsed.id, scopes: parsed.scopes, secretHash: Buffer.from(parsed.secretHash, 'base64url') };
    lastRaw = raw;
  }
  return lastRecord;
}

function refuse(res: ServerResponse, status: number, requestId: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
  res.end('{"error":"refused"}');
}

/**
 * The answer streamed back through undici's dispatch API, as the gateway forwards (proxy/forward.ts): the
 * cheapest way undici has, so the floor pays no more for forwarding than the gateway does.
 */
class FloorExchange implements Dispatcher.DispatchHandler {
  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: string,
    private readonly rateLimit: string,
  ) {}

  // Its presence tells undici this handler speaks the new API (undici 7); nothing to do at the start.
  onRequestStart() {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>) {
    const out = headers as Record<string, string | string[]>;
    out['x-request-id'] = this.requestId;
    if (checksEverything) {
      out['ratelimit-policy'] = POLICY;
      out.ratelimit = this.rateLimit;
    }
    this.res.writeHead(statusCode, out);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer) {
    this.res.write(chunk);
  }

  onResponseEnd() {
    this.res.end();
  }

  onResponseError() {
    this.res.destroy();
  }
}

const POLICY = `"1d";q=${limit};w=86400`;

/** FLOOR_PARTS other than all: the first request's signed context, sent with every request after it. */
let signedOnce: ReturnType<typeof signContext> | null = null;

function signedContext(url: string, requestId: string, record: FloorRecord): ReturnType<typeof signContext> {
  if (!checksEverything && signedOnce !== null) return signedOnce;
  const signed = signContext(internalSecret, 'catalog', 'GET', url, { requestId, keyId: record.id, scopes: record.scopes });
  if (!checksEverything) signedOnce = signed;
  return signed;
}

/** Once the Redis replies are in: the secret, the count, the signed context, the forward. */
function forward(req: IncomingMessage, res: ServerResponse, requestId: string, secret: string, replies: RespReply[]): void {
  const record = recordOf(replies);
  if (record === null || (checksEverything && !secretMatchesHash(secret, record.secretHash))) {
    refuse(res, 401, requestId);
    return;
  }
  const used = replies[1] as number;
  if (used > limit) {
    refuse(res, 429, requestId);
    return;
  }
  const url = req.url!;
  const signed = signedContext(url, requestId, record);
  upstream.dispatch(
    {
      path: url,
      method: 'GET',
      headers: { 'x-acs-context': signed.context, 'x-acs-signature': signed.signature, 'x-request-id': requestId },
    },
    new FloorExchange(res, requestId, `"1d";r=${limit - used};t=3600`),
  );
}

/** FLOOR_PARTS=forward: the first reply, kept. */
let firstReplies: RespReply[] | null = null;

function redisReplies(): Promise<RespReply[]> {
  if (parts !== 'forward') return redis.batch(payload, 2);
  if (firstReplies !== null) return Promise.resolve(firstReplies);
  return redis.batch(payload, 2).then((replies) => {
    firstReplies = replies;
    return replies;
  });
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end('ok');
    return;
  }
  const requestId = randomUUID();
  const secret = req.headers['x-api-secret'];
  if (typeof req.headers['x-api-key'] !== 'string' || typeof secret !== 'string') {
    refuse(res, 401, requestId);
    return;
  }
  redisReplies().then(
    (replies) => forward(req, res, requestId, secret, replies),
    () => res.destroy(),
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
