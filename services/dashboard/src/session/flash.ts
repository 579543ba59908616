import { z } from 'zod';

/**
 * What one page tells the next after a redirect (POST-redirect-GET). A created key's secret
 * travels this way, sealed, to the one page view that shows it; the cookie is deleted as it is read.
 */
export const flashSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('notice'), message: z.string().max(500) }),
  z.object({
    kind: z.literal('created-key'),
    name: z.string(),
    key: z.string(),
    secret: z.string(),
    scopes: z.string(),
    environment: z.string(),
  }),
  z.object({ kind: z.literal('rolled-key'), name: z.string(), key: z.string(), secret: z.string(), graceEndsAt: z.string().nullable() }),
  /** A webhook endpoint's signing secret, new or rotated: shown on the one page view after the form. */
  z.object({ kind: z.literal('webhook-secret'), url: z.string(), secret: z.string(), rotated: z.boolean() }),
]);

export type Flash = z.infer<typeof flashSchema>;

export const notice = (message: string): Flash => ({ kind: 'notice', message });
