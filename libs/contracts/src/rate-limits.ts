import { z } from 'zod';

/*
 * Per-key rate limits (issue 16): up to four windows, each "at most `limit` requests per `windowSeconds`",
 * enforced by the gateway with GCRA (no burst at window edges). A key without its own list gets the
 * gateway's default for its environment (RATE_LIMITS_LIVE / RATE_LIMITS_TEST); system:full-access keys are
 * never limited.
 */

const RATE_LIMIT_MAX_WINDOWS = 4;
const RATE_LIMIT_MAX_LIMIT = 1_000_000_000;
const RATE_LIMIT_MAX_WINDOW_SECONDS = 86_400;

const rateLimitWindowSchema = z.strictObject({
  limit: z.number().int().min(1).max(RATE_LIMIT_MAX_LIMIT).describe('requests admitted per window'),
  windowSeconds: z.number().int().min(1).max(RATE_LIMIT_MAX_WINDOW_SECONDS).describe('window length in seconds'),
});
export type RateLimitWindow = z.infer<typeof rateLimitWindowSchema>;

export const rateLimitsSchema = z
  .array(rateLimitWindowSchema)
  .min(1, 'give at least one window, or null for none of its own')
  .max(RATE_LIMIT_MAX_WINDOWS, `at most ${RATE_LIMIT_MAX_WINDOWS} windows`)
  .refine((windows) => new Set(windows.map((w) => w.windowSeconds)).size === windows.length, {
    message: 'each windowSeconds at most once',
  });
export type RateLimits = z.infer<typeof rateLimitsSchema>;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const WINDOW_TEXT = /^([0-9]{1,10})\/([0-9]{0,5})([smhd])$/;

/** "20/1s,50000/1d" (units s, m, h, d; "20/s" means 20/1s) as a validated list; throws an Error naming the bad part. */
export function parseRateLimitsText(text: string): RateLimits {
  const windows = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const match = WINDOW_TEXT.exec(part);
      if (!match) throw new Error(`"${part}" is not <limit>/<n><s|m|h|d>, e.g. 20/1s or 50000/1d`);
      return { limit: Number(match[1]), windowSeconds: Number(match[2] || '1') * UNIT_SECONDS[match[3]!]! };
    });
  const parsed = rateLimitsSchema.safeParse(windows);
  if (!parsed.success)
    throw new Error(
      `rate limits "${text}": ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'list'}: ${issue.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** The inverse of parseRateLimitsText, with the largest whole unit: [{limit: 20, windowSeconds: 60}] -> "20/1m". */
export function formatRateLimits(windows: readonly RateLimitWindow[]): string {
  return windows
    .map(({ limit, windowSeconds }) => {
      for (const unit of ['d', 'h', 'm'] as const) {
        if (windowSeconds % UNIT_SECONDS[unit]! === 0) return `${limit}/${windowSeconds / UNIT_SECONDS[unit]!}${unit}`;
      }
      return `${limit}/${windowSeconds}s`;
    })
    .join(',');
}

/**
 * A user's own list must stay at or below the deployment's ceiling (RATE_LIMIT_CEILING): for every window of
 * the ceiling, the list has a window of the same length with a limit at or below the ceiling's. Further
 * windows only restrict more, so they are free. Returns what is wrong, one line each; empty when it fits.
 */
export function ceilingViolations(windows: readonly RateLimitWindow[], ceiling: readonly RateLimitWindow[]): string[] {
  const problems: string[] = [];
  for (const bound of ceiling) {
    const own = windows.find((w) => w.windowSeconds === bound.windowSeconds);
    const label = formatRateLimits([bound]);
    if (!own) problems.push(`a window of ${bound.windowSeconds} s is required (at most ${label})`);
    else if (own.limit > bound.limit) problems.push(`${formatRateLimits([own])} is above the ceiling ${label}`);
  }
  return problems;
}

/** An environment variable holding a list in the text form ("100/1s,100000/1d"); unset or empty: null (none). */
export const rateLimitsEnv = () =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return null;
      try {
        return parseRateLimitsText(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });
