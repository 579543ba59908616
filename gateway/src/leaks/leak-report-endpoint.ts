import { LEAK_REPORT_INTERNAL_PATH, LEAK_REPORT_MAX_BODY_BYTES, SCANNER_KEY_ID_HEADER, SCANNER_SIGNATURE_HEADER } from '@acs/contracts';
import { errorOf, payloadTooLarge } from '@acs/errors';
import { internalRequest } from '../auth/internal-call.js';
import type { PublicEndpoint } from '../handler.js';
import type { Upstream } from '../proxy/upstreams.js';
import { readBody } from '../proxy/read-body.js';
import { sendError, sendJson } from '../respond.js';

/** Reports a gateway takes per minute: scanners send a few an hour; a flood of forged ones never reaches keys. */
const REPORTS_PER_MINUTE = 60;

const header = (value: string | string[] | undefined): string | null => (typeof value === 'string' ? value : null);

/** A fixed one-minute window in process: no Redis read for an endpoint that has no key to count on. */
function minuteWindow(limit: number): () => number {
  let windowStart = 0;
  let used = 0;
  return () => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      windowStart = now;
      used = 0;
    }
    used += 1;
    return used > limit ? Math.ceil((windowStart + 60_000 - now) / 1000) : 0;
  };
}

/**
 * POST SECRET_SCANNING_REPORT_PATH (issue 31): public, no API key (a scanner has none). The gateway bounds it
 * (1 MiB, 60 reports a minute per replica) and relays the exact bytes with the signature headers to keys, which
 * checks the signature against the operator's public keys before anything else, and answers for itself.
 */
export function leakReportEndpoint(keys: Upstream): PublicEndpoint {
  const take = minuteWindow(REPORTS_PER_MINUTE);
  return async (req, res, requestId) => {
    // A declared size over the cap is refused first: it costs nothing to tell, and it is not a report.
    if (Number(req.headers['content-length'] ?? 0) > LEAK_REPORT_MAX_BODY_BYTES)
      return sendError(res, payloadTooLarge(LEAK_REPORT_MAX_BODY_BYTES), requestId);
    const retryAfter = take();
    if (retryAfter > 0)
      return sendError(
        res,
        errorOf('too_many_requests', 'Too many leak reports; retry later', {
          code: 'rate_limited',
          headers: { 'retry-after': String(retryAfter) },
        }),
        requestId,
      );
    const body = await readBody(req, LEAK_REPORT_MAX_BODY_BYTES);
    if (body === null) return sendError(res, payloadTooLarge(LEAK_REPORT_MAX_BODY_BYTES), requestId);
    const { status, json } = await internalRequest(keys, keys.internalSecret, 'POST', LEAK_REPORT_INTERNAL_PATH, requestId, {
      body: body.toString('base64'),
      keyIdentifier: header(req.headers[SCANNER_KEY_ID_HEADER]),
      signature: header(req.headers[SCANNER_SIGNATURE_HEADER]),
    });
    sendJson(res, status, json, requestId);
  };
}
