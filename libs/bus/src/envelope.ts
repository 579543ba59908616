import { z } from 'zod';
import type { BusEnvelope } from './types.js';

/** `<words>.v<n>`: consumers switch on the exact type, so an unversioned type is refused at the door. */
export const EVENT_TYPE_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.v[0-9]+$/;

export const busEnvelopeSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.string().max(200).regex(EVENT_TYPE_PATTERN, 'must look like "subscription.activated.v1"'),
  occurredAt: z.iso.datetime({ offset: true }),
  // JSON cannot carry `undefined`, so a missing payload is a malformed message, not an empty one.
  payload: z.unknown().refine((value) => value !== undefined, 'payload is required'),
});

export type DecodeResult = { ok: true; envelope: BusEnvelope } | { ok: false; reason: string };

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** Checks an envelope before it is sent, so a bad event fails in the publisher, not in every consumer. */
export function validateEnvelope(message: unknown): DecodeResult {
  const result = busEnvelopeSchema.safeParse(message);
  return result.success ? { ok: true, envelope: result.data } : { ok: false, reason: `invalid envelope: ${describeIssues(result.error)}` };
}

export function encodeEnvelope(envelope: BusEnvelope): Buffer {
  return Buffer.from(JSON.stringify(envelope), 'utf8');
}

/** Never throws: a message that fails here is poison and goes to the dead-letter queue. */
export function decodeEnvelope(content: Buffer | string): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof content === 'string' ? content : content.toString('utf8'));
  } catch (err) {
    return { ok: false, reason: `invalid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  return validateEnvelope(parsed);
}
