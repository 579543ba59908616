import { badRequest, errorOf, payloadTooLarge } from '@acs/errors';
import type { AppContext } from './types.js';

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Reads and parses a JSON request body, refusing early (413) when Content-Length already says it
 * is too large and stopping the read once the limit is crossed, so memory stays bounded.
 */
export async function readJsonBody(ctx: AppContext, limitBytes = DEFAULT_BODY_LIMIT_BYTES): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limitBytes) throw payloadTooLarge(limitBytes);
  if (!ctx.is('application/json') && !ctx.is('+json')) {
    if (declared === 0 && !ctx.get('transfer-encoding')) throw badRequest('A JSON request body is required');
    throw errorOf('unsupported_media_type', 'Send the body as application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limitBytes) {
      ctx.req.unpipe();
      ctx.set('Connection', 'close');
      throw payloadTooLarge(limitBytes);
    }
    chunks.push(buffer);
  }
  if (size === 0) throw badRequest('A JSON request body is required');
  try {
    return JSON.parse(Buffer.concat(chunks, size).toString('utf8')) as unknown;
  } catch {
    throw badRequest('The request body is not valid JSON');
  }
}
