import type { IncomingMessage } from 'node:http';

/** The largest form here (a device registration) is a few hundred bytes. */
const FORM_LIMIT_BYTES = 16 * 1024;

export class FormBodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
    this.name = 'FormBodyError';
  }
}

/** Reads an `application/x-www-form-urlencoded` body (what a plain HTML form sends), bounded in size. */
export async function readForm(req: IncomingMessage, limitBytes = FORM_LIMIT_BYTES): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new FormBodyError(415, 'This form must be sent by the page it belongs to.');
  if (Number(req.headers['content-length'] ?? 0) > limitBytes) throw new FormBodyError(413, 'The form is too large.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw new FormBodyError(413, 'The form is too large.');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
