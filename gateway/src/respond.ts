import type { ServerResponse } from 'node:http';
import { errorBody, type AppError } from '@acs/errors';

export function sendJson(res: ServerResponse, status: number, body: unknown, requestId: string, extraHeaders?: Record<string, string>): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'x-request-id': requestId,
    ...extraHeaders,
  });
  res.end(payload);
}

export function sendError(res: ServerResponse, error: AppError, requestId: string): void {
  sendJson(res, error.status, errorBody(error, requestId), requestId, error.headers);
}
