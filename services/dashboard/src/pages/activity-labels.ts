import type { AuditLogResponseBody, AUDIT_TARGET_TYPES, SESSION_END_REASONS } from '@acs/contracts';
import { planTypeName, roleName } from './labels.js';

export type AuditItem = AuditLogResponseBody['items'][number];

/** The families the page filters by: an entry's target type (api_key.revoked is about an api_key). */
export const ACTIVITY_FAMILIES: readonly { value: (typeof AUDIT_TARGET_TYPES)[number]; label: string }[] = [
  { value: 'account', label: 'Account' },
  { value: 'session', label: 'Sign-ins' },
  { value: 'api_key', label: 'API keys' },
  { value: 'subscription', label: 'Subscriptions' },
];

export type ActivityFamily = (typeof AUDIT_TARGET_TYPES)[number];

export const isActivityFamily = (value: string | null): value is ActivityFamily =>
  ACTIVITY_FAMILIES.some((family) => family.value === value);

/** A string field of a before/after view, or null: the views are the services' own, read defensively. */
function text(view: Record<string, unknown> | null, field: string): string | null {
  const value = view?.[field];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function number(view: Record<string, unknown> | null, field: string): number | null {
  const value = view?.[field];
  return typeof value === 'number' ? value : null;
}

/** `API key “studio app”`, or `An API key` when the entry carries no name. */
const keyName = (item: AuditItem): string => {
  const name = text(item.after, 'name') ?? text(item.before, 'name');
  return name ? `API key “${name}”` : 'An API key';
};

/** Why a session ended (identity's session.ended `reason`), in words. */
const SESSION_END: Record<(typeof SESSION_END_REASONS)[number], string> = {
  signed_out: 'Signed out',
  ended: 'Session ended',
  ended_others: 'Session ended (all other sessions ended)',
  password_changed: 'Session ended by a password change',
  password_reset: 'Session ended by a password reset',
};

const device = (item: AuditItem): string => text(item.after, 'device') ?? 'an unknown device';

/** `Role changed to Subscriber`, or `Role changed` when the entry's after view has no such number. */
function changedTo(what: string, value: number | null, name: (value: number) => string): string {
  return value === null ? what : `${what} to ${name(value)}`;
}

/** `Subscription (pro-monthly)`, or `Subscription` when the entry names no plan. */
const subscriptionName = (item: AuditItem): string => {
  const plan = text(item.after, 'planId');
  return plan ? `Subscription (${plan})` : 'Subscription';
};

function sessionEnded(item: AuditItem): string {
  const reason = text(item.after, 'reason');
  const said = reason && Object.hasOwn(SESSION_END, reason) ? SESSION_END[reason as keyof typeof SESSION_END] : 'Session ended';
  return `${said}: ${device(item)}`;
}

/** Each action the page words, by name; the others are shown as they are. */
const ACTIVITY_LABELS: Record<string, (item: AuditItem) => string> = {
  'account.created': () => 'Account created',
  'account.seeded': () => 'Account set up by the operator',
  'account.role_changed': (item) => changedTo('Role changed', number(item.after, 'accountRole'), roleName),
  'account.trial_changed': () => 'Trial period changed',
  'account.subscription_changed': (item) => changedTo('Plan changed', number(item.after, 'planType'), planTypeName),
  'api_key.created': (item) => `${keyName(item)} created`,
  'api_key.changed': (item) => `${keyName(item)} changed`,
  'api_key.rolled': (item) => `${keyName(item)}: secret rolled`,
  'api_key.revoked': (item) => `${keyName(item)} revoked`,
  'api_key.expired': (item) => `${keyName(item)} expired`,
  'api_key.seeded': (item) => `${keyName(item)} set up by the operator`,
  'subscription.activated': (item) => `${subscriptionName(item)} started`,
  'subscription.changed': (item) => `${subscriptionName(item)} changed`,
  'subscription.canceled': (item) => `${subscriptionName(item)} canceled`,
  'session.created': (item) => `Signed in from ${device(item)}`,
  'session.ended': sessionEnded,
};

/**
 * An entry in words ("API key “studio app” created", "Signed in from Firefox on Linux"). Only the
 * fields named here are read from before/after (names, device labels, roles): never a raw view, so
 * nothing a service adds to its views later reaches the page unread. An action this page does not
 * know yet is shown as it is.
 */
export function describeActivity(item: AuditItem): string {
  return Object.hasOwn(ACTIVITY_LABELS, item.action) ? ACTIVITY_LABELS[item.action]!(item) : item.action;
}

/** Who did it, as the signed-in user reads it: their trail holds only changes to their own things, so a user actor is them. */
export function describeActor(item: AuditItem): string {
  switch (item.actor.type) {
    case 'user':
      return 'You';
    case 'operator':
      return 'An operator';
    default:
      return 'The system';
  }
}
