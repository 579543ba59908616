import type { ApiKeyView } from '@acs/contracts';
import { scopesFromForm } from '../account/scopes.js';
import type { AccountApi } from '../gateway-client/account-api.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { revokeKeyPage, rollKeyPage } from '../pages/keys/confirm-pages.js';
import { editDraftOf, editKeyPage, type KeyEditDraft } from '../pages/keys/key-edit-page.js';
import { keyPage } from '../pages/keys/key-page.js';
import { GRACE_CHOICES } from '../pages/key-lifecycle.js';
import { describeRateLimits, rateLimitsFromForm } from '../pages/rate-limits.js';
import { describeIpAllowList, ipAllowListFromForm } from '../pages/ip-allow-list.js';
import { notice } from '../session/flash.js';
import { KEY_TOPIC, isPage, loadKey, revokedPage, secretsOf } from './key-kit.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn, type Failure } from './route-kit.js';

type KeyHandler = (req: PageRequest, key: ApiKeyView) => Promise<PageResponse>;

const keyPath = (key: ApiKeyView): string => `/keys/${encodeURIComponent(key.id)}`;

/** Signed in, the key found in the user's own listing; `live` also refuses a revoked key. */
function withKey(api: AccountApi, handler: KeyHandler, live = false): PageHandler {
  return requireSignIn(async (req) => {
    const key = await loadKey(api, req);
    if (isPage(key)) return key;
    return live && key.revokedAt ? revokedPage(req, key) : handler(req, key);
  });
}

async function show(api: AccountApi, publicGatewayUrl: string, req: PageRequest, key: ApiKeyView): Promise<PageResponse> {
  // The chart is extra: a page without it beats no page.
  const [usage, operations] = await Promise.all([
    api.keyUsage(callerOf(req), key.id).catch(() => null),
    api.keyOperationUsage(callerOf(req), key.id).catch(() => null),
  ]);
  return showPage(keyPage(chromeFor(req), { key, usage, operations, ...secretsOf(req), publicGatewayUrl }));
}

const editForm = (req: PageRequest, key: ApiKeyView, draft: KeyEditDraft, failure: Failure | null = null): PageResponse =>
  showPage(editKeyPage(chromeForFailure(req, failure), key, draft), failure?.status ?? 200, failure?.headers);

async function saveEdit(api: AccountApi, req: PageRequest, key: ApiKeyView): Promise<PageResponse> {
  const draft: KeyEditDraft = {
    name: field(req.form, 'name'),
    scopes: req.form.getAll('scopes'),
    rateLimits: field(req.form, 'rateLimits'),
    ipAllowList: field(req.form, 'ipAllowList'),
  };
  const limits = rateLimitsFromForm(draft.rateLimits);
  if (!limits.ok) return editForm(req, key, draft, { status: 400, message: limits.message, fields: { rateLimits: limits.message } });
  const allowed = ipAllowListFromForm(draft.ipAllowList);
  if (!allowed.ok) return editForm(req, key, draft, { status: 400, message: allowed.message, fields: { ipAllowList: allowed.message } });
  try {
    const changed = await api.changeKey(callerOf(req), key.id, {
      name: draft.name,
      scopes: scopesFromForm(draft.scopes),
      rateLimits: limits.rateLimits,
      ipAllowList: allowed.ipAllowList,
    });
    const said = `Saved. “${changed.name}” now has scopes ${changed.scopes || '(none)'}, rate limits ${describeRateLimits(changed.rateLimits)} and allowed addresses ${describeIpAllowList(changed.ipAllowList)}, from its next request.`;
    return redirectTo(keyPath(changed), { flash: notice(said) });
  } catch (err) {
    return editForm(req, key, draft, failureOf(err, req, KEY_TOPIC));
  }
}

async function roll(api: AccountApi, req: PageRequest, key: ApiKeyView): Promise<PageResponse> {
  const grace = field(req.form, 'graceSeconds');
  if (!GRACE_CHOICES.some((choice) => choice.value === grace))
    return showPage(rollKeyPage(chromeFor(req, 'Choose how long the old secret keeps working.'), key), 400);
  try {
    const { name, secret, graceEndsAt, ...rolled } = await api.rollKey(callerOf(req), key.id, Number(grace));
    return redirectTo(keyPath(key), { flash: { kind: 'rolled-key', name, key: rolled.key, secret, graceEndsAt } });
  } catch (err) {
    const failure = failureOf(err, req, KEY_TOPIC);
    return showPage(rollKeyPage(chromeFor(req, failure.message), key), failure.status, failure.headers);
  }
}

async function revoke(api: AccountApi, req: PageRequest, key: ApiKeyView): Promise<PageResponse> {
  try {
    const revoked = await api.revokeKey(callerOf(req), key.id);
    return redirectTo('/keys', { flash: notice(`The key “${revoked.name}” is revoked: its next request is refused.`) });
  } catch (err) {
    const failure = failureOf(err, req, KEY_TOPIC);
    return showPage(revokeKeyPage(chromeFor(req, failure.message), key), failure.status, failure.headers);
  }
}

/** One key: its page (facts, chart), its settings behind "Edit", roll and revoke behind confirmations. */
export function keyPageRoutes(api: AccountApi, publicGatewayUrl: string): RouteDefinition<PageHandler>[] {
  return [
    { method: 'GET', pattern: '/keys/{id}', handler: withKey(api, (req, key) => show(api, publicGatewayUrl, req, key)) },
    { method: 'GET', pattern: '/keys/{id}/edit', handler: withKey(api, async (req, key) => editForm(req, key, editDraftOf(key)), true) },
    { method: 'POST', pattern: '/keys/{id}/edit', handler: withKey(api, (req, key) => saveEdit(api, req, key), true) },
    {
      method: 'GET',
      pattern: '/keys/{id}/roll',
      handler: withKey(api, async (req, key) => showPage(rollKeyPage(chromeFor(req), key)), true),
    },
    { method: 'POST', pattern: '/keys/{id}/roll', handler: withKey(api, (req, key) => roll(api, req, key), true) },
    {
      method: 'GET',
      pattern: '/keys/{id}/revoke',
      handler: withKey(api, async (req, key) => showPage(revokeKeyPage(chromeFor(req), key)), true),
    },
    { method: 'POST', pattern: '/keys/{id}/revoke', handler: withKey(api, (req, key) => revoke(api, req, key), true) },
  ];
}
