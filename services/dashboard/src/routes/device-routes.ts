import type { AccountApi, NewDevice } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { isInsufficientRole } from '../gateway-client/user-messages.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { devicesPage, type DeviceDraft } from '../pages/devices-page.js';
import { messagePage } from '../pages/message-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn, sessionEnded, type Failure } from './route-kit.js';

/** The form's text fields as the gateway's JSON body: empty optional fields are left out. */
function toNewDevice(draft: DeviceDraft): NewDevice | string {
  const device: NewDevice = { serialNumber: draft.serialNumber, name: draft.name };
  if (draft.catalogEntryId !== '') {
    if (!/^[1-9][0-9]{0,9}$/.test(draft.catalogEntryId)) return 'The catalog entry id must be a whole number, such as 42.';
    device.catalogEntryId = Number(draft.catalogEntryId);
  }
  if (draft.firmwareVersion !== '') device.firmwareVersion = draft.firmwareVersion;
  return device;
}

/** The user's devices: list and register. */
export function deviceRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  async function render(req: PageRequest, failure: Failure | null = null, draft?: DeviceDraft): Promise<PageResponse> {
    let listing: Awaited<ReturnType<AccountApi['listDevices']>>;
    try {
      listing = await api.listDevices(callerOf(req));
    } catch (err) {
      if (isGatewayError(err) && isInsufficientRole(err)) return sessionEnded();
      const problem = failureOf(err, req);
      return showPage(messagePage(chromeFor(req), 'Devices', problem.message), problem.status, problem.headers);
    }
    const data = { devices: listing.items, catalogUnavailable: listing.catalogUnavailable, ...(draft ? { draft } : {}) };
    return showPage(devicesPage(chromeForFailure(req, failure), data), failure?.status ?? 200, failure?.headers);
  }

  return [
    { method: 'GET', pattern: '/devices', handler: requireSignIn((req) => render(req)) },
    {
      method: 'POST',
      pattern: '/devices',
      handler: requireSignIn(async (req) => {
        const draft: DeviceDraft = {
          serialNumber: field(req.form, 'serialNumber'),
          name: field(req.form, 'name'),
          catalogEntryId: field(req.form, 'catalogEntryId'),
          firmwareVersion: field(req.form, 'firmwareVersion'),
        };
        const device = toNewDevice(draft);
        if (typeof device === 'string') return render(req, { status: 400, message: device, fields: { catalogEntryId: device } }, draft);
        try {
          const registered = await api.registerDevice(callerOf(req), device);
          const message = registered.created
            ? `“${registered.device.name}” is registered to your account.`
            : `“${registered.device.name}” was already registered to your account; its details are updated.`;
          return redirectTo('/devices', { flash: notice(message) });
        } catch (err) {
          return render(req, failureOf(err, req, { notFound: 'Not found.' }), draft);
        }
      }),
    },
  ];
}
