import { z } from 'zod';

/** The platform's error body (ARCHITECTURE.md decision 5), read leniently: only what we show. */
export const gatewayErrorBodySchema = z.object({
  error: z.string().max(200),
  message: z.string().max(2000),
  requestId: z.string().optional(),
  /** The platform's machine-readable reason (docs/errors.md), e.g. session_ended. */
  code: z.string().max(100).optional(),
  details: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .max(100)
    .optional(),
});

export type GatewayErrorBody = z.infer<typeof gatewayErrorBodySchema>;

/**
 * The gateway said no (4xx), failed (5xx), or could not be reached or understood (`status` 502,
 * 503, 504 made up here). Routes turn it into a readable message (user-messages.ts).
 */
export class GatewayError extends Error {
  readonly status: number;
  readonly body: GatewayErrorBody | null;
  /** Seconds, from Retry-After (429, 503). */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: GatewayErrorBody | null, retryAfterSeconds: number | null = null, options?: { cause?: unknown }) {
    super(body?.message ?? `The gateway answered ${status}`, options);
    this.name = 'GatewayError';
    this.status = status;
    this.body = body;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const isGatewayError = (value: unknown): value is GatewayError => value instanceof GatewayError;
