import type { RateLimitWindow } from '@acs/contracts';
import type { LimitVerdict } from './sliding-window.js';

/*
 * Headers per draft-ietf-httpapi-ratelimit-headers-11: RateLimit-Policy lists every window of the key
 * ("<name>";q=<limit>;w=<seconds>), RateLimit reports the window with the least room left
 * ("<name>";r=<remaining>;t=<seconds until it is full again, or until a request is admitted when refused>).
 * A window's name is its length ("1s", "5m", "1d"), unique within a key's list.
 */

const UNITS: readonly [number, string][] = [
  [86_400, 'd'],
  [3600, 'h'],
  [60, 'm'],
];

export function windowName(windowSeconds: number): string {
  for (const [seconds, unit] of UNITS) if (windowSeconds % seconds === 0) return `${windowSeconds / seconds}${unit}`;
  return `${windowSeconds}s`;
}

// The policy header of a list, made once per list (key records are parsed once per cache string; defaults once).
const policies = new WeakMap<readonly RateLimitWindow[], { policy: string; names: string[] }>();

function describe(windows: readonly RateLimitWindow[]): { policy: string; names: string[] } {
  let described = policies.get(windows);
  if (!described) {
    const names = windows.map((w) => `"${windowName(w.windowSeconds)}"`);
    described = { policy: windows.map((w, i) => `${names[i]};q=${w.limit};w=${w.windowSeconds}`).join(', '), names };
    policies.set(windows, described);
  }
  return described;
}

/** The two headers, plus Retry-After when refused. */
export function rateLimitHeaders(windows: readonly RateLimitWindow[], verdict: LimitVerdict): Record<string, string> {
  const { policy, names } = describe(windows);
  const headers: Record<string, string> = {
    'ratelimit-policy': policy,
    ratelimit: `${names[verdict.window] ?? names[0]};r=${verdict.remaining};t=${verdict.resetSeconds}`,
  };
  if (!verdict.admitted) headers['retry-after'] = String(Math.max(1, verdict.retryAfterSeconds));
  return headers;
}
