import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { SUBSCRIPTION_NEEDED, isInsufficientRole } from '../gateway-client/user-messages.js';
import { scopesFromForm } from '../account/scopes.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { keysPage, revokeKeyPage, type KeyDraft, type KeyListing } from '../pages/keys-page.js';
import { messagePage } from '../pages/message-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, failureOf, field, requireSignIn, type Failure } from './route-kit.js';

const KEY_TOPIC = { insufficientRole: SUBSCRIPTION_NEEDED, notFound: 'That API key was not found in your account.' };

/** API keys: list, create (secret shown once), change scopes, revoke. Role >= 1 is the gateway's rule, not ours. */
export function keyRoutes(api: AccountApi, publicGatewayUrl: string): RouteDefinition<PageHandler>[] {
  /** The keys page, optionally after a failed form; the listing is asked for fresh every time. */
  async function render(req: PageRequest, failure: Failure | null = null, draft?: KeyDraft): Promise<PageResponse> {
    const created = req.flash?.kind === 'created-key' ? req.flash : null;
    let error = failure?.message ?? null;
    const fields = failure?.fields;
    let status = failure?.status ?? 200;
    let headers = failure?.headers;
    let listing: KeyListing;
    try {
      listing = { kind: 'keys', keys: await api.listKeys(callerOf(req)) };
    } catch (err) {
      if (isGatewayError(err) && isInsufficientRole(err)) {
        listing = { kind: 'subscription-needed' };
        if (error === SUBSCRIPTION_NEEDED) error = null; // said once, by the listing
      } else {
        const problem = failureOf(err, req);
        listing = { kind: 'unavailable', message: problem.message };
        if (!failure) ({ status, headers } = problem);
      }
    }
    return showPage(keysPage(chromeFor(req, error, fields), { listing, created, publicGatewayUrl, ...(draft ? { draft } : {}) }), status, headers);
  }

  /** The confirmation before a revocation: the key, by name, from the user's own listing. */
  async function confirmRevoke(req: PageRequest): Promise<PageResponse> {
    let keys;
    try {
      keys = await api.listKeys(callerOf(req));
    } catch (err) {
      if (isGatewayError(err) && isInsufficientRole(err)) return render(req);
      const problem = failureOf(err, req, KEY_TOPIC);
      return showPage(messagePage(chromeFor(req), 'API keys', problem.message), problem.status, problem.headers);
    }
    const key = keys.find((k) => k.id === req.params.id && !k.revokedAt);
    if (!key) return showPage(messagePage(chromeFor(req), 'Key not found', KEY_TOPIC.notFound), 404);
    return showPage(revokeKeyPage(chromeFor(req), key));
  }

  return [
    { method: 'GET', pattern: '/keys', handler: requireSignIn((req) => render(req)) },
    {
      method: 'POST',
      pattern: '/keys',
      handler: requireSignIn(async (req) => {
        const draft: KeyDraft = { name: field(req.form, 'name'), scopes: req.form.getAll('scopes'), environment: field(req.form, 'environment') || 'live' };
        if (draft.environment !== 'live' && draft.environment !== 'test') return render(req, { status: 400, message: 'Choose live or test.', fields: { environment: 'Choose live or test.' } }, draft);
        try {
          const created = await api.createKey(callerOf(req), { name: draft.name, scopes: scopesFromForm(draft.scopes), environment: draft.environment });
          const { name, key, secret, scopes, environment } = created;
          return redirectTo('/keys', { flash: { kind: 'created-key', name, key, secret, scopes, environment } });
        } catch (err) {
          return render(req, failureOf(err, req, KEY_TOPIC), draft);
        }
      }),
    },
    {
      method: 'POST',
      pattern: '/keys/:id/scopes',
      handler: requireSignIn(async (req) => {
        try {
          const changed = await api.changeKeyScopes(callerOf(req), req.params.id!, scopesFromForm(req.form.getAll('scopes')));
          return redirectTo('/keys', { flash: notice(`The scopes of “${changed.name}” are now: ${changed.scopes || '(none)'}. This applies to its next request.`) });
        } catch (err) {
          return render(req, failureOf(err, req, KEY_TOPIC));
        }
      }),
    },
    { method: 'GET', pattern: '/keys/:id/revoke', handler: requireSignIn(confirmRevoke) },
    {
      method: 'POST',
      pattern: '/keys/:id/revoke',
      handler: requireSignIn(async (req) => {
        try {
          const revoked = await api.revokeKey(callerOf(req), req.params.id!);
          return redirectTo('/keys', { flash: notice(`The key “${revoked.name}” is revoked: its next request is refused.`) });
        } catch (err) {
          return render(req, failureOf(err, req, KEY_TOPIC));
        }
      }),
    },
  ];
}
