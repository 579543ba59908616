import type { AccountApi } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { SUBSCRIPTION_NEEDED, isInsufficientRole } from '../gateway-client/user-messages.js';
import { scopesFromForm } from '../account/scopes.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { keysPage, revokeKeyPage, type KeyDraft, type KeyListing, type LimitsDraft } from '../pages/keys-page.js';
import { describeRateLimits, rateLimitsFromForm } from '../pages/rate-limits.js';
import { GRACE_CHOICES, expiryFromForm, rollKeyPage } from '../pages/key-lifecycle.js';
import type { ApiKeyUsageResponseBody, ApiKeyView } from '@acs/contracts';
import { messagePage } from '../pages/message-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, failureOf, field, requireSignIn, type Failure } from './route-kit.js';

const KEY_TOPIC = { insufficientRole: SUBSCRIPTION_NEEDED, notFound: 'That API key was not found in your account.' };

/** API keys: list (with each key's usage chart), create (secret shown once), change scopes, roll, revoke. Role >= 1 is the gateway's rule, not ours. */
export function keyRoutes(api: AccountApi, publicGatewayUrl: string): RouteDefinition<PageHandler>[] {
  /** Each key's last 30 days, asked in parallel; a key whose usage cannot be read just shows no chart. */
  async function usageOf(req: PageRequest, keys: ApiKeyView[]): Promise<Map<string, ApiKeyUsageResponseBody>> {
    const caller = callerOf(req);
    const answers = await Promise.all(
      keys.map((key) =>
        api.keyUsage(caller, key.id).then(
          (usage) => [key.id, usage] as const,
          () => null,
        ),
      ),
    );
    return new Map(answers.filter((answer) => answer !== null));
  }

  /** The keys page, optionally after a failed form; the listing is asked for fresh every time. */
  async function render(
    req: PageRequest,
    failure: Failure | null = null,
    draft?: KeyDraft,
    limitsDraft?: LimitsDraft,
  ): Promise<PageResponse> {
    const created = req.flash?.kind === 'created-key' ? req.flash : null;
    const rolled = req.flash?.kind === 'rolled-key' ? req.flash : null;
    let usage: Map<string, ApiKeyUsageResponseBody> | undefined;
    let error = failure?.message ?? null;
    const fields = failure?.fields;
    let status = failure?.status ?? 200;
    let headers = failure?.headers;
    let listing: KeyListing;
    try {
      listing = { kind: 'keys', keys: await api.listKeys(callerOf(req)) };
      usage = await usageOf(req, listing.keys);
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
    return showPage(
      keysPage(chromeFor(req, error, fields), {
        listing,
        created,
        rolled,
        publicGatewayUrl,
        ...(usage ? { usage } : {}),
        ...(draft ? { draft } : {}),
        ...(limitsDraft ? { limitsDraft } : {}),
      }),
      status,
      headers,
    );
  }

  /** The confirmation before a revocation or a roll: the key, by name, from the user's own listing. */
  async function confirm(req: PageRequest, page: typeof revokeKeyPage, usable: (key: ApiKeyView) => boolean): Promise<PageResponse> {
    let keys: Awaited<ReturnType<AccountApi['listKeys']>>;
    try {
      keys = await api.listKeys(callerOf(req));
    } catch (err) {
      if (isGatewayError(err) && isInsufficientRole(err)) return render(req);
      const problem = failureOf(err, req, KEY_TOPIC);
      return showPage(messagePage(chromeFor(req), 'API keys', problem.message), problem.status, problem.headers);
    }
    const key = keys.find((k) => k.id === req.params.id && usable(k));
    if (!key) return showPage(messagePage(chromeFor(req), 'Key not found', KEY_TOPIC.notFound), 404);
    return showPage(page(chromeFor(req), key));
  }

  return [
    { method: 'GET', pattern: '/keys', handler: requireSignIn((req) => render(req)) },
    {
      method: 'POST',
      pattern: '/keys',
      handler: requireSignIn(async (req) => {
        const draft: KeyDraft = {
          name: field(req.form, 'name'),
          scopes: req.form.getAll('scopes'),
          environment: field(req.form, 'environment') || 'live',
          expiresInDays: field(req.form, 'expiresInDays'),
          expiresOn: field(req.form, 'expiresOn'),
          rateLimits: field(req.form, 'rateLimits'),
        };
        if (draft.environment !== 'live' && draft.environment !== 'test')
          return render(req, { status: 400, message: 'Choose live or test.', fields: { environment: 'Choose live or test.' } }, draft);
        const expiry = expiryFromForm(draft.expiresInDays ?? '', draft.expiresOn ?? '');
        if (!expiry.ok) return render(req, { status: 400, message: expiry.message, fields: { expiresAt: expiry.message } }, draft);
        const limits = rateLimitsFromForm(draft.rateLimits ?? '');
        if (!limits.ok) return render(req, { status: 400, message: limits.message, fields: { rateLimits: limits.message } }, draft);
        const { expiresAt } = expiry;
        try {
          const created = await api.createKey(callerOf(req), {
            name: draft.name,
            scopes: scopesFromForm(draft.scopes),
            environment: draft.environment,
            ...(expiresAt ? { expiresAt } : {}),
            ...(limits.rateLimits ? { rateLimits: limits.rateLimits } : {}),
          });
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
          return redirectTo('/keys', {
            flash: notice(`The scopes of “${changed.name}” are now: ${changed.scopes || '(none)'}. This applies to its next request.`),
          });
        } catch (err) {
          return render(req, failureOf(err, req, KEY_TOPIC));
        }
      }),
    },
    {
      method: 'POST',
      pattern: '/keys/:id/limits',
      handler: requireSignIn(async (req) => {
        const limitsDraft: LimitsDraft = { keyId: req.params.id!, text: field(req.form, 'rateLimits') };
        const limits = rateLimitsFromForm(limitsDraft.text);
        if (!limits.ok)
          return render(req, { status: 400, message: limits.message, fields: { rateLimits: limits.message } }, undefined, limitsDraft);
        try {
          const changed = await api.changeKeyLimits(callerOf(req), limitsDraft.keyId, limits.rateLimits);
          return redirectTo('/keys', {
            flash: notice(
              `The rate limits of “${changed.name}” are now: ${describeRateLimits(changed.rateLimits)}. This applies to its next request.`,
            ),
          });
        } catch (err) {
          return render(req, failureOf(err, req, KEY_TOPIC), undefined, limitsDraft);
        }
      }),
    },
    { method: 'GET', pattern: '/keys/:id/revoke', handler: requireSignIn((req) => confirm(req, revokeKeyPage, (key) => !key.revokedAt)) },
    { method: 'GET', pattern: '/keys/:id/roll', handler: requireSignIn((req) => confirm(req, rollKeyPage, (key) => !key.revokedAt)) },
    {
      method: 'POST',
      pattern: '/keys/:id/roll',
      handler: requireSignIn(async (req) => {
        const grace = field(req.form, 'graceSeconds');
        if (!GRACE_CHOICES.some((choice) => choice.value === grace))
          return render(req, { status: 400, message: 'Choose how long the old secret keeps working.' });
        try {
          const rolled = await api.rollKey(callerOf(req), req.params.id!, Number(grace));
          const { name, key, secret, graceEndsAt } = rolled;
          return redirectTo('/keys', { flash: { kind: 'rolled-key', name, key, secret, graceEndsAt } });
        } catch (err) {
          return render(req, failureOf(err, req, KEY_TOPIC));
        }
      }),
    },
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
