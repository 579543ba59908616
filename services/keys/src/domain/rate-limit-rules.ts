import { ceilingViolations, formatRateLimits, type RateLimits } from '@acs/contracts';
import { badRequest } from '@acs/errors';

/**
 * Users may set their own keys' limits only at or below the deployment's ceiling (RATE_LIMIT_CEILING), so an
 * app developer can cap a key that ships inside an app but never lift it past what operators allow. Null
 * (the deployment's default) is always allowed: the default is the operators' choice.
 */
export function assertWithinCeiling(rateLimits: RateLimits | null | undefined, ceiling: RateLimits | null): void {
  if (!rateLimits || !ceiling) return;
  const problems = ceilingViolations(rateLimits, ceiling);
  if (problems.length === 0) return;
  throw badRequest(
    `rateLimits must be at or below this deployment's ceiling ${formatRateLimits(ceiling)}: for each of its windows, a window of the same length with a limit at or below it`,
    problems.map((message) => ({ path: 'rateLimits', message })),
  );
}
