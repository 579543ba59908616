import { createHash, randomUUID } from 'node:crypto';
import { IDEMPOTENT_REPLAYED_HEADER, idempotencyCacheKey, idempotencyKeySchema, isIdempotentWriteMethod } from '@acs/contracts';
import { badRequest, conflict, errorOf, payloadTooLarge, unavailable, unprocessable } from '@acs/errors';
import type { ApiExchange, PipelineDeps, Step } from '../pipeline/exchange.js';
import { answer } from '../pipeline/refuse.js';
import { readBody } from '../proxy/read-body.js';
import type { ClaimResult, StoredAnswer } from './idempotency-store.js';
import { PendingAnswer } from './pending-answer.js';

const sha256 = (...parts: (string | Buffer)[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};

function replay(ex: ApiExchange, stored: StoredAnswer): Step {
  ex.res.writeHead(stored.status, {
    ...stored.headers,
    ...ex.limitHeaders,
    'content-length': stored.body.length,
    'x-request-id': ex.requestId,
    [IDEMPOTENT_REPLAYED_HEADER.toLowerCase()]: 'true',
  });
  ex.res.end(stored.body);
  return 'answered';
}

async function claim(ex: ApiExchange, deps: PipelineDeps, header: string | string[]): Promise<Step> {
  // 1-255 visible ASCII characters: the rule billing has applied since it had the header.
  if (typeof header !== 'string' || !idempotencyKeySchema.safeParse(header).success)
    return answer(
      ex,
      badRequest('The Idempotency-Key header is invalid', [
        { path: 'header.Idempotency-Key', message: 'expected 1-255 visible ASCII characters' },
      ]),
    );
  if (Number(ex.req.headers['content-length'] ?? 0) > deps.maxBodyBytes) return answer(ex, payloadTooLarge(deps.maxBodyBytes));
  const body = await readBody(ex.req, deps.maxBodyBytes);
  if (body === null)
    return answer(ex, errorOf('payload_too_large', payloadTooLarge(deps.maxBodyBytes).message, { headers: { connection: 'close' } }));
  const fingerprint = sha256(ex.method, ' ', ex.url, '\n', body);
  const userId = ex.context?.userId ?? null;
  const entry = idempotencyCacheKey(ex.record!.id, sha256(`${userId ?? '-'}\n${ex.method}\n${ex.path}\n${header}`));
  const lease = randomUUID();
  let found: ClaimResult;
  try {
    found = await deps.idempotency.claim(entry, lease, fingerprint);
  } catch (err) {
    // Forwarding anyway could run the write twice, which is what the client asked us to prevent.
    deps.logger.warn({ err, requestId: ex.requestId }, 'idempotency records unavailable');
    return answer(
      ex,
      unavailable('Idempotency-Key records are unavailable; retry with the same key', {
        code: 'idempotency_unavailable',
        headers: { 'retry-after': '1' },
      }),
    );
  }
  if (found.kind === 'claimed') {
    ex.idempotency = new PendingAnswer(deps.idempotency, entry, lease, fingerprint, body, deps.logger, ex.requestId);
    return undefined;
  }
  if (found.fingerprint !== fingerprint)
    return answer(ex, unprocessable('This Idempotency-Key was already used with a different request', undefined, 'idempotency_key_reused'));
  if (found.kind === 'running')
    return answer(
      ex,
      conflict('A request with this Idempotency-Key is still running', {
        code: 'idempotency_request_in_progress',
        hint: 'Retry once the first request has answered; its answer will then be replayed.',
      }),
    );
  return replay(ex, found.answer);
}

/**
 * Step 6 (issue 31): a POST or PATCH with an Idempotency-Key takes a lease on (key, user, method, path,
 * Idempotency-Key) before it is forwarded, or gets the kept answer again, or 422/409. A request without the
 * header pays one header lookup: no read, no round trip.
 */
export function claimIdempotency(ex: ApiExchange, deps: PipelineDeps): Step | Promise<Step> {
  const header = ex.req.headers['idempotency-key'];
  if (header === undefined || !isIdempotentWriteMethod(ex.method)) return undefined;
  return claim(ex, deps, header);
}
