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
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'x-request-id': requestId,
    // Answered before the request's body arrived (a refusal, a 404): the connection closes rather
    // than node reading and dropping a body of any size for the next request's sake.
    ...(res.req.complete ? {} : { connection: 'close' }),
    ...extraHeaders,
  });
  // ...but not under a client still sending: it reads the answer first (lingering-close.ts).
  if (!res.req.complete) lingerAfterAnswer(res);
  res.end(payload);
}

export function sendError(res: ServerResponse, error: AppError, requestId: string): void {
  sendJson(res, error.status, errorBody(error, requestId), requestId, error.headers);
}
