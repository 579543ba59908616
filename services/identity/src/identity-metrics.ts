import { Counter, type Registry } from '@acs/metrics';
import type { IdentityMetrics, ThrottledLimit } from './domain/deps.js';

export const LOGIN_THROTTLED_TOTAL = 'identity_login_throttled_total';

const LIMITS: readonly ThrottledLimit[] = ['account', 'address', 'account_and_address'];

/** `identity_login_throttled_total{limit}`: logins refused with 429; a surge is someone guessing passwords. */
export function createIdentityMetrics(registry: Registry): IdentityMetrics {
  const throttled = new Counter({ name: LOGIN_THROTTLED_TOTAL, help: 'Logins refused (429) by the failed-login limits, by the limit reached', labelNames: ['limit'], registers: [registry] });
  for (const limit of LIMITS) throttled.inc({ limit }, 0); // present from the start, so rate() alerts have a series
  return { loginThrottled: (limit) => throttled.inc({ limit }) };
}
