import { SPEC_ERRORS } from '@acs/errors';
import { isOwnKeyRefused } from './gateway-client.js';
import type { GatewayError } from './gateway-error.js';

/** What a refusal means on a given page, where the gateway's wording would be too general. */
export interface MessageTopic {
  /** The spec's 403 "A valid user JWT with sufficient role is required". */
  insufficientRole?: string;
  notFound?: string;
  /** A 401 that is not about the dashboard's key (a failed login). */
  unauthorized?: string;
}

export const SUBSCRIPTION_NEEDED =
  'Managing API keys needs an active subscription or trial. Choose a plan on the Subscriptions page; keys work again as soon as it is active.';

const FIELD_LABELS: Record<string, string> = {
  email: 'E-mail',
  password: 'Password',
  firstName: 'First name',
  lastName: 'Last name',
  name: 'Name',
  scopes: 'Scopes',
  environment: 'Environment',
  rateLimits: 'Rate limits',
  planId: 'Plan',
  serialNumber: 'Serial number',
  catalogEntryId: 'Catalog entry id',
  firmwareVersion: 'Firmware version',
  url: 'URL',
  events: 'Events',
  description: 'Description',
};

/** The form field a validation detail is about: `body.password` -> `password`. */
const fieldNameOf = (path: string): string => path.replace(/^body\./, '').split('.')[0]!;

function fieldLabel(path: string): string {
  const field = fieldNameOf(path);
  return FIELD_LABELS[field] ?? field;
}

/** Each field's own messages (from a 400/422's details), to be shown next to that field. */
export function fieldErrorsOf(err: GatewayError): Record<string, string> {
  const errors: Record<string, string> = {};
  if (err.status !== 400 && err.status !== 422) return errors;
  for (const detail of err.body?.details ?? []) {
    const name = fieldNameOf(detail.path);
    errors[name] = errors[name] ? `${errors[name]}; ${detail.message}` : detail.message;
  }
  return errors;
}

/** Whole minutes, rounded up: a wait is never announced shorter than it is. */
function minutesToWait(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export const isInsufficientRole = (err: GatewayError): boolean =>
  err.status === 403 && err.body?.message === SPEC_ERRORS.insufficientUser.message;

/**
 * A sentence for the page. The services' own messages are written for clients (never internals)
 * and are used for 400/409/422; statuses that mean "try later" get our words and a reference.
 */
export function describeGatewayError(err: GatewayError, requestId: string, topic: MessageTopic = {}): string {
  const message = err.body?.message;
  switch (err.status) {
    case 400:
    case 422: {
      const details = err.body?.details ?? [];
      if (details.length === 0) return message ?? 'Some of the values were not accepted.';
      return `Please check: ${details.map((d) => `${fieldLabel(d.path)}: ${d.message}`).join('; ')}.`;
    }
    case 401:
      if (isOwnKeyRefused(err) || !topic.unauthorized)
        return `The account service refused the dashboard's access. Please try again later (reference ${requestId}).`;
      return topic.unauthorized;
    case 403:
      if (isInsufficientRole(err) && topic.insufficientRole) return topic.insufficientRole;
      return 'You are not allowed to do that.';
    case 404:
      return topic.notFound ?? message ?? 'Not found.';
    case 409:
      return message ?? 'That conflicts with the current state of your account.';
    case 413:
      return 'That was too large.';
    case 429:
      // The same words whichever limit was hit (address, account, registrations): nothing here
      // tells an attacker whether an account exists or which counter they filled.
      return `Too many attempts from your network, try again in ${minutesToWait(err.retryAfterSeconds ?? 60)}.`;
    default:
      return `The account service is not available right now. Please try again in a moment (reference ${requestId}).`;
  }
}

/** The status of the page that shows the message: the gateway's for what the user can fix, else 502/503/504. */
export function pageStatusFor(err: GatewayError): number {
  if (err.status === 401 && isOwnKeyRefused(err)) return 503;
  if (err.status >= 400 && err.status < 500) return err.status;
  return err.status === 504 ? 504 : err.status === 502 ? 502 : 503;
}
