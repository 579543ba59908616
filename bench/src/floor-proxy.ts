import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { secretMatchesHash, signContext } from '@acs/auth';
import { MgetConnection, type RespReply } from '@acs/cache';

/*
 * The floor of an API gateway under this spec (`npm run bench -- --floor`): the plain proxy (plain-proxy.ts, the
 * same undici stream call) plus only what the spec makes every limited request do, each the cheapest way we know:
 * - one Redis round trip, batched per event-loop turn on the gateway's own lean connection: the key record
 *   (MGET) and the limiter's counter (INCR) in one write;
 * - the record parsed once (kept while Redis returns the same string), the secret hashed and compared in
 *   constant time against it;
 * - a request id, the signed context (HMAC) for the service, and the request id and RateLimit headers on the answer.
 * The counter moves with the read, so a refused request counts too (the gateway gives its count back; the floor
 * measures admitted requests, where that costs nothing).
 * Nothing else: no routing table, scopes, expiry, roll, quota, usage, metrics, tracing or error shapes. The
 * gateway's CPU over this is its own design's cost; this over the plain proxy is what the spec's minimum costs.
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
// One command pair per request; the key and counter names are the bench's one key, so encoded once.
const payload = redis.keyCommand('MGET', [recordKey]) + redis.keyCommand('INCR', [`floor:counter:{${recordKey}}`]);

let lastRaw: string | null = null;
let lastRecord: FloorRecord | null = null;

/** The record in the MGET reply, parsed only when its string changed. */
function recordOf(replies: RespReply[]): FloorRecord | null {
  const raw = (replies[0] as (string | null)[])[0] ?? null;
  if (raw === null) return null;
  if (raw !== lastRaw) {
    // A versioned entry, `<version>|<record>` (libs/cache versioned-entry.ts).
    const parsed = JSON.parse(raw.slice(raw.indexOf('|') + 1)) as { id: string; scopes: string[]; secretHash: string };
    lastRecord = { id: parsed.id, scopes: parsed.scopes, secretHash: Buffer.from(parsed.secretHash, 'base64url') };
    lastRaw = raw;
  }
  return lastRecord;
}

function refuse(res: ServerResponse, status: number, requestId: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
  res.end('{"error":"refused"}');
}

async function proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  const secret = req.headers['x-api-secret'];
  if (typeof req.headers['x-api-key'] !== 'string' || typeof secret !== 'string') return refuse(res, 401, requestId);
  const replies = await redis.batch(payload, 2);
  const record = recordOf(replies);
  if (record === null || !secretMatchesHash(secret, record.secretHash)) return refuse(res, 401, requestId);
  const used = replies[1] as number;
  if (used > limit) return refuse(res, 429, requestId);
  const url = req.url!;
  const signed = signContext(internalSecret, 'catalog', 'GET', url, { requestId, keyId: record.id, scopes: record.scopes });
  const rateLimit = `"1d";r=${limit - used};t=3600`;
  await upstream.stream(
    {
      path: url,
      method: 'GET',
      headers: { 'x-acs-context': signed.context, 'x-acs-signature': signed.signature, 'x-request-id': requestId },
    },
    ({ statusCode, headers }) => {
      const out = headers as Record<string, string>;
      out['x-request-id'] = requestId;
      out['ratelimit-policy'] = `"1d";q=${limit};w=86400`;
      out.ratelimit = rateLimit;
      res.writeHead(statusCode, out);
      return res;
    },
  );
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end('ok');
    return;
  }
  proxy(req, res).catch(() => res.destroy());
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
