import type { ApiKeyView } from '@acs/contracts';
import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { SUBSCRIPTION_NEEDED, isInsufficientRole } from '../gateway-client/user-messages.js';
import { redirectTo, showPage, type PageRequest, type PageResponse } from '../http/page.js';
import { messagePage } from '../pages/message-page.js';
import type { CreatedKey, RolledKey } from '../pages/keys/secret-panels.js';
import { callerOf, chromeFor, failureOf } from './route-kit.js';

export const KEY_TOPIC = { insufficientRole: SUBSCRIPTION_NEEDED, notFound: 'That API key was not found in your account.' };

/** The secrets a form's redirect left for this one page view. */
export function secretsOf(req: PageRequest): { created: CreatedKey | null; rolled: RolledKey | null } {
  const flash = req.flash;
  return { created: flash?.kind === 'created-key' ? flash : null, rolled: flash?.kind === 'rolled-key' ? flash : null };
}

/**
 * The key of the path from the user's own listing (the gateway has no single-key read; it answers
 * only the caller's keys, so another user's id is simply not found), or the page that says why not.
 */
export async function loadKey(api: AccountApi, req: PageRequest): Promise<ApiKeyView | PageResponse> {
  let keys: ApiKeyView[];
  try {
    keys = await api.listKeys(callerOf(req));
  } catch (err) {
    // Without a subscription the list explains it and links to the plans.
    if (isGatewayError(err) && isInsufficientRole(err)) return redirectTo('/keys');
    const problem = failureOf(err, req, KEY_TOPIC);
    return showPage(messagePage(chromeFor(req), 'API keys', problem.message), problem.status, problem.headers);
  }
  const key = keys.find((k) => k.id === req.params.id);
  return key ?? showPage(messagePage(chromeFor(req), 'Key not found', KEY_TOPIC.notFound), 404);
}

export const isPage = (value: ApiKeyView | PageResponse): value is PageResponse => 'status' in value;

/** A key that is revoked takes no more changes: its pages say so instead of offering a form. */
export const revokedPage = (req: PageRequest, key: ApiKeyView): PageResponse =>
  showPage(messagePage(chromeFor(req), 'Key revoked', `The key “${key.name}” is revoked; it cannot be changed or used again.`), 409);
