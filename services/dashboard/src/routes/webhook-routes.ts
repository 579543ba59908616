import type { AccountApi } from '../gateway-client/account-api.js';
import { redirectTo, showPage, type PageHandler, type PageRequest } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { messagePage } from '../pages/message-page.js';
import { webhookDeliveriesPage, webhooksPage, type ShownWebhookSecret, type WebhookDraft } from '../pages/webhooks-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn, type Failure } from './route-kit.js';

const TOPIC = { notFound: 'That webhook endpoint is not one of yours, or it was deleted.' };

const shownSecret = (req: PageRequest): ShownWebhookSecret | null =>
  req.flash?.kind === 'webhook-secret' ? { url: req.flash.url, secret: req.flash.secret, rotated: req.flash.rotated } : null;

async function list(api: AccountApi, req: PageRequest, failure: Failure | null = null, draft?: WebhookDraft) {
  try {
    const endpoints = await api.listWebhooks(callerOf(req));
    return showPage(
      webhooksPage(chromeForFailure(req, failure), endpoints, failure ? null : shownSecret(req), draft),
      failure?.status ?? 200,
    );
  } catch (err) {
    const refused = failureOf(err, req, TOPIC);
    return showPage(messagePage(chromeFor(req), 'Webhooks', refused.message), refused.status, refused.headers);
  }
}

async function create(api: AccountApi, req: PageRequest) {
  const draft: WebhookDraft = {
    url: field(req.form, 'url'),
    events: req.form.getAll('events'),
    description: field(req.form, 'description'),
  };
  try {
    const created = await api.createWebhook(callerOf(req), {
      url: draft.url,
      events: draft.events as never,
      ...(draft.description ? { description: draft.description } : {}),
    });
    return redirectTo('/webhooks', { flash: { kind: 'webhook-secret', url: created.url, secret: created.secret, rotated: false } });
  } catch (err) {
    return list(api, req, failureOf(err, req, TOPIC), draft);
  }
}

async function act(req: PageRequest, change: () => Promise<PageRequest['flash']>, back = '/webhooks') {
  try {
    return redirectTo(back, { flash: (await change()) ?? undefined });
  } catch (err) {
    const failure = failureOf(err, req, TOPIC);
    return showPage(messagePage(chromeFor(req), 'Webhooks', failure.message), failure.status, failure.headers);
  }
}

async function deliveries(api: AccountApi, req: PageRequest) {
  const id = req.params.id ?? '';
  try {
    const [endpoint, page] = await Promise.all([
      api.getWebhook(callerOf(req), id),
      api.webhookDeliveries(callerOf(req), id, req.query.get('cursor')),
    ]);
    return showPage(webhookDeliveriesPage(chromeFor(req), endpoint, page));
  } catch (err) {
    const failure = failureOf(err, req, TOPIC);
    return showPage(messagePage(chromeFor(req), 'Webhooks', failure.message), failure.status, failure.headers);
  }
}

/** The user's webhook endpoints (issue 30): list and add, pause and enable, rotate, delete, the delivery log and replay. */
export function webhookRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  const post = (pattern: string, handler: PageHandler): RouteDefinition<PageHandler> => ({
    method: 'POST',
    pattern,
    handler: requireSignIn(handler),
  });
  return [
    { method: 'GET', pattern: '/webhooks', handler: requireSignIn((req) => list(api, req)) },
    post('/webhooks', (req) => create(api, req)),
    { method: 'GET', pattern: '/webhooks/{id}', handler: requireSignIn((req) => deliveries(api, req)) },
    post('/webhooks/{id}/enable', (req) =>
      act(req, async () => {
        const endpoint = await api.changeWebhook(callerOf(req), req.params.id ?? '', { enabled: true });
        return notice(`${endpoint.url} is enabled: waiting deliveries go out now.`);
      }),
    ),
    post('/webhooks/{id}/disable', (req) =>
      act(req, async () => {
        const endpoint = await api.changeWebhook(callerOf(req), req.params.id ?? '', { enabled: false });
        return notice(`${endpoint.url} is paused: its deliveries wait until you enable it.`);
      }),
    ),
    post('/webhooks/{id}/rotate', (req) =>
      act(req, async () => {
        const rotated = await api.rotateWebhookSecret(callerOf(req), req.params.id ?? '');
        return { kind: 'webhook-secret', url: rotated.url, secret: rotated.secret, rotated: true };
      }),
    ),
    post('/webhooks/{id}/delete', (req) =>
      act(req, async () => {
        const deleted = await api.deleteWebhook(callerOf(req), req.params.id ?? '');
        return notice(`${deleted.url} is deleted.`);
      }),
    ),
    post('/webhooks/{id}/deliveries/{deliveryId}/replay', (req) =>
      act(
        req,
        async () => {
          const delivery = await api.replayWebhookDelivery(callerOf(req), req.params.id ?? '', req.params.deliveryId ?? '');
          return notice(`The ${delivery.eventType} delivery is sent again now.`);
        },
        `/webhooks/${req.params.id ?? ''}`,
      ),
    ),
  ];
}
