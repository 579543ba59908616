/** The spec's role and plan type values, in words. */
const ROLE_NAMES = ['Free', 'Subscriber', 'Admin', 'SuperAdmin'];
const PLAN_TYPE_NAMES = ['Free', 'Monthly', 'Yearly', 'Lifetime'];

export const roleName = (role: number): string => ROLE_NAMES[role] ?? `role ${role}`;
export const planTypeName = (planType: number): string => PLAN_TYPE_NAMES[planType] ?? `plan type ${planType}`;

/** "2025-03-01 14:05 UTC": one unambiguous format, no client-side script to localize it. */
export function formatTime(value: string | number | null): string {
  if (value === null) return '';
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatPrice(price: number, currency: string, interval: string): string {
  const amount = `${price.toFixed(2)} ${currency}`;
  switch (interval) {
    case 'month':
      return `${amount} per month`;
    case 'year':
      return `${amount} per year`;
    case 'lifetime':
      return `${amount} once`;
    default:
      return price === 0 ? 'free' : amount;
  }
}
