import { Counter, type Registry } from '@acs/metrics';
import type { IdentityMetrics, ThrottledLimit } from './domain/deps.js';

const LOGIN_THROTTLED_TOTAL = 'identity_login_throttled_total';
const REGISTRATION_THROTTLED_TOTAL = 'identity_registration_throttled_total';
const LOGIN_LOCAL_LIMITER_TOTAL = 'identity_login_local_limiter_total';

const THROTTLED_LIMITS: readonly ThrottledLimit[] = ['account_address', 'address', 'account'];

/**
 * `identity_login_throttled_total{limit}`: logins refused with 429, by the limit reached (a surge is
 * someone guessing passwords); `identity_registration_throttled_total`: registrations refused with
 * 429; `identity_login_local_limiter_total`: logins limited by this process alone (Redis unreachable).
 */
export function createIdentityMetrics(registry: Registry): IdentityMetrics {
  const throttled = new Counter({
    name: LOGIN_THROTTLED_TOTAL,
    help: 'Logins refused (429) by the failed-login limits, by the limit reached',
    labelNames: ['limit'],
    registers: [registry],
  });
  for (const limit of THROTTLED_LIMITS) throttled.inc({ limit }, 0); // present from the start, so rate() alerts have a series
  const registrations = new Counter({
    name: REGISTRATION_THROTTLED_TOTAL,
    help: 'Registrations refused (429) by the per-address limit',
    registers: [registry],
  });
  const local = new Counter({
    name: LOGIN_LOCAL_LIMITER_TOTAL,
    help: 'Logins limited by this process alone because Redis could not be reached',
    registers: [registry],
  });
  return {
    loginThrottled: (limit) => throttled.inc({ limit }),
    registrationThrottled: () => registrations.inc(),
    localLimiterUsed: () => local.inc(),
  };
}
