import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { isInsufficientRole } from '../gateway-client/user-messages.js';
import { scopesFromForm } from '../account/scopes.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { createKeyPage, type KeyDraft } from '../pages/keys/key-create-page.js';
import { keysPage, type KeyListing } from '../pages/keys/key-list-page.js';
import { rateLimitsFromForm } from '../pages/rate-limits.js';
import { ipAllowListFromForm } from '../pages/ip-allow-list.js';
import { expiryFromForm } from '../pages/key-lifecycle.js';
import { KEY_TOPIC, secretsOf } from './key-kit.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn, type Failure } from './route-kit.js';

/** What the key list and key creation need (the parameters of keyRoutes). */
interface KeyListDeps {
  api: AccountApi;
  publicGatewayUrl: string;
  maxLifetimeDays: number | null;
}

/** `refused`: the status of a create the gateway refused for the role (the list then says why). */
async function list({ api, publicGatewayUrl }: KeyListDeps, req: PageRequest, refused = 200): Promise<PageResponse> {
  let listing: KeyListing;
  let status = refused;
  let headers: Record<string, string> | undefined;
  try {
    listing = { kind: 'keys', keys: await api.listKeys(callerOf(req)) };
  } catch (err) {
    if (isGatewayError(err) && isInsufficientRole(err)) listing = { kind: 'subscription-needed' };
    else {
      const problem = failureOf(err, req);
      listing = { kind: 'unavailable', message: problem.message };
      ({ status, headers } = problem);
    }
  }
  return showPage(keysPage(chromeFor(req), { listing, ...secretsOf(req), publicGatewayUrl }), status, headers);
}

/** The create form, empty or as sent after a refusal (each message beside its field). */
const form = (maxLifetimeDays: number | null, req: PageRequest, failure: Failure | null = null, draft?: KeyDraft): PageResponse =>
  showPage(createKeyPage(chromeForFailure(req, failure), draft, maxLifetimeDays), failure?.status ?? 200, failure?.headers);

const draftOf = (req: PageRequest): KeyDraft => ({
  name: field(req.form, 'name'),
  scopes: req.form.getAll('scopes'),
  environment: field(req.form, 'environment') || 'live',
  expiresInDays: field(req.form, 'expiresInDays'),
  expiresOn: field(req.form, 'expiresOn'),
  rateLimits: field(req.form, 'rateLimits'),
  ipAllowList: field(req.form, 'ipAllowList'),
});

async function create(deps: KeyListDeps, req: PageRequest): Promise<PageResponse> {
  const { api, maxLifetimeDays } = deps;
  const draft = draftOf(req);
  const refuse = (failure: Failure) => form(maxLifetimeDays, req, failure, draft);
  if (draft.environment !== 'live' && draft.environment !== 'test')
    return refuse({ status: 400, message: 'Choose live or test.', fields: { environment: 'Choose live or test.' } });
  const expiry = expiryFromForm(draft.expiresInDays ?? '', draft.expiresOn ?? '', maxLifetimeDays);
  if (!expiry.ok) return refuse({ status: 400, message: expiry.message, fields: { expiresAt: expiry.message } });
  const limits = rateLimitsFromForm(draft.rateLimits ?? '');
  if (!limits.ok) return refuse({ status: 400, message: limits.message, fields: { rateLimits: limits.message } });
  const allowed = ipAllowListFromForm(draft.ipAllowList ?? '');
  if (!allowed.ok) return refuse({ status: 400, message: allowed.message, fields: { ipAllowList: allowed.message } });
  try {
    const created = await api.createKey(callerOf(req), {
      name: draft.name,
      scopes: scopesFromForm(draft.scopes),
      environment: draft.environment,
      ...(expiry.expiresAt ? { expiresAt: expiry.expiresAt } : {}),
      ...(limits.rateLimits ? { rateLimits: limits.rateLimits } : {}),
      ...(allowed.ipAllowList ? { ipAllowList: allowed.ipAllowList } : {}),
    });
    const { name, key, secret, scopes, environment } = created;
    return redirectTo(`/keys/${encodeURIComponent(created.id)}`, {
      flash: { kind: 'created-key', name, key, secret, scopes, environment },
    });
  } catch (err) {
    if (isGatewayError(err) && isInsufficientRole(err)) return list(deps, req, 403);
    return refuse(failureOf(err, req, KEY_TOPIC));
  }
}

/**
 * The key list and key creation. Role >= 1 is the gateway's rule, not ours. `maxLifetimeDays`:
 * KEY_MAX_LIFETIME_DAYS, the keys service's maximum lifetime (null: none), which the form follows.
 */
export function keyRoutes(api: AccountApi, publicGatewayUrl: string, maxLifetimeDays: number | null): RouteDefinition<PageHandler>[] {
  const deps: KeyListDeps = { api, publicGatewayUrl, maxLifetimeDays };
  return [
    { method: 'GET', pattern: '/keys', handler: requireSignIn((req) => list(deps, req)) },
    { method: 'GET', pattern: '/keys/new', handler: requireSignIn(async (req) => form(maxLifetimeDays, req)) },
    { method: 'POST', pattern: '/keys', handler: requireSignIn((req) => create(deps, req)) },
  ];
}
