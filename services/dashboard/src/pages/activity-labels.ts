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

function accountLabel(item: AuditItem): string {
  switch (item.action) {
    case 'account.created':
      return 'Account created';
    case 'account.seeded':
      return 'Account set up by the operator';
    case 'account.role_changed': {
      const role = number(item.after, 'accountRole');
      return role === null ? 'Role changed' : `Role changed to ${roleName(role)}`;
    }
    case 'account.trial_changed':
      return 'Trial period changed';
    case 'account.subscription_changed': {
      const planType = number(item.after, 'planType');
      return planType === null ? 'Plan changed' : `Plan changed to ${planTypeName(planType)}`;
    }
    default:
      return '';
  }
}

function keyLabel(item: AuditItem): string {
  const name = keyName(item);
  switch (item.action) {
    case 'api_key.created':
      return `${name} created`;
    case 'api_key.changed':
      return `${name} changed`;
    case 'api_key.rolled':
      return `${name}: secret rolled`;
    case 'api_key.revoked':
      return `${name} revoked`;
    case 'api_key.expired':
      return `${name} expired`;
    case 'api_key.seeded':
      return `${name} set up by the operator`;
    default:
      return '';
  }
}

function subscriptionLabel(item: AuditItem): string {
  const plan = text(item.after, 'planId');
  const which = plan ? `Subscription (${plan})` : 'Subscription';
  switch (item.action) {
    case 'subscription.activated':
      return `${which} started`;
    case 'subscription.changed':
      return `${which} changed`;
    case 'subscription.canceled':
      return `${which} canceled`;
    default:
      return '';
  }
}

function sessionLabel(item: AuditItem): string {
  if (item.action === 'session.created') return `Signed in from ${device(item)}`;
  if (item.action !== 'session.ended') return '';
  const reason = text(item.after, 'reason');
  const said = reason && Object.hasOwn(SESSION_END, reason) ? SESSION_END[reason as keyof typeof SESSION_END] : 'Session ended';
  return `${said}: ${device(item)}`;
}

/**
 * An entry in words ("API key “studio app” created", "Signed in from Firefox on Linux"). Only the
 * fields named here are read from before/after (names, device labels, roles): never a raw view, so
 * nothing a service adds to its views later reaches the page unread. An action this page does not
 * know yet is shown as it is.
 */
export function describeActivity(item: AuditItem): string {
  const label = [accountLabel, keyLabel, subscriptionLabel, sessionLabel].map((describe) => describe(item)).find((x) => x !== '');
  return label ?? item.action;
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
