import type { ServerResponse } from 'node:http';
import { errorBody, type AppError } from '@acs/errors';
import { lingerAfterAnswer } from '@acs/http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  requestId: string,
  extraHeaders?: Record<string, string>,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const payload = JSON.stringify(body);
  const pending = bodyPending(res);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'x-request-id': requestId,
    // Answered before the request's body arrived (a refusal, a 404): the connection closes rather
    // than node reading and dropping a body of any size for the next request's sake.
    ...(pending ? { connection: 'close' } : {}),
    ...extraHeaders,
  });
  // ...but not under a client still sending: it reads the answer first (lingering-close.ts).
  if (pending) lingerAfterAnswer(res);
  res.end(payload);
}

/**
 * Whether the request still has body bytes to come. A request that announces none (no Content-Length or 0, no
 * Transfer-Encoding) has none, even while node has not yet marked it complete: a refusal answered synchronously
 * (a malformed key or secret, issue 31) keeps the connection, so a flood of junk credentials costs no reconnects.
 */
function bodyPending(res: ServerResponse): boolean {
  const { req } = res;
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * An error answer. `answerHeaders`: headers every answer to the request carries (an admitted request's
 * RateLimit headers), passed here rather than set with res.setHeader beforehand, which would send every
 * writeHead of the request down node's slower header-merging path.
 */
export function sendError(res: ServerResponse, error: AppError, requestId: string, answerHeaders?: Record<string, string> | null): void {
  const headers = answerHeaders ? { ...answerHeaders, ...error.headers } : error.headers;
  sendJson(res, error.status, errorBody(error, requestId), requestId, headers);
}
