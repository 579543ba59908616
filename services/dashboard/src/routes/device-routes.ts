import type { AccountApi, CallerContext, NewDevice } from '../gateway-client/account-api.js';
import { isGatewayError } from '../gateway-client/gateway-error.js';
import { isInsufficientRole } from '../gateway-client/user-messages.js';
import { redirectTo, showPage, type PageHandler, type PageRequest, type PageResponse } from '../http/page.js';
import type { RouteDefinition } from '../http/router.js';
import { pickerResults, type CatalogResults } from '../pages/catalog-picker.js';
import { devicesPage, type DeviceDraft } from '../pages/devices-page.js';
import { messagePage } from '../pages/message-page.js';
import { notice } from '../session/flash.js';
import { callerOf, chromeFor, chromeForFailure, failureOf, field, requireSignIn, sessionEnded, type Failure } from './route-kit.js';

/** The catalog's own bound for `q`; longer text is cut rather than refused, it is only a search. */
const MAX_QUERY_LENGTH = 80;

/** The form's text fields as the gateway's JSON body: empty optional fields are left out. */
function toNewDevice(draft: DeviceDraft): NewDevice | string {
  const device: NewDevice = { serialNumber: draft.serialNumber, name: draft.name };
  if (draft.catalogEntryId !== '') {
    if (!/^[1-9][0-9]{0,9}$/.test(draft.catalogEntryId)) return 'Choose a catalog entry from the search results, or none.';
    device.catalogEntryId = Number(draft.catalogEntryId);
  }
  if (draft.firmwareVersion !== '') device.firmwareVersion = draft.firmwareVersion;
  return device;
}

/** The catalog's answer to the picker's text: nothing asked for an empty search, and a failed search is said, not fatal. */
async function searchCatalog(api: AccountApi, caller: CallerContext, rawQuery: string): Promise<CatalogResults> {
  const q = rawQuery.trim().slice(0, MAX_QUERY_LENGTH);
  if (q === '') return { kind: 'idle' };
  try {
    const page = await api.searchCatalog(caller, q);
    return { kind: 'found', q, entries: page.items, total: page.total };
  } catch {
    return { kind: 'unavailable' };
  }
}

/** The user's devices: list, register, and the catalog search of the registration form. */
export function deviceRoutes(api: AccountApi): RouteDefinition<PageHandler>[] {
  async function render(req: PageRequest, q: string, failure: Failure | null = null, draft?: DeviceDraft): Promise<PageResponse> {
    const caller = callerOf(req);
    const [listing, results] = await Promise.all([
      api.listDevices(caller).catch((err: unknown) => err as Error),
      searchCatalog(api, caller, q),
    ]);
    if (listing instanceof Error) {
      if (isGatewayError(listing) && isInsufficientRole(listing)) return sessionEnded();
      const problem = failureOf(listing, req);
      return showPage(messagePage(chromeFor(req), 'Devices', problem.message), problem.status, problem.headers);
    }
    const data = { devices: listing.items, catalogUnavailable: listing.catalogUnavailable, q, results, ...(draft ? { draft } : {}) };
    return showPage(devicesPage(chromeForFailure(req, failure), data), failure?.status ?? 200, failure?.headers);
  }

  async function register(req: PageRequest): Promise<PageResponse> {
    const draft: DeviceDraft = {
      serialNumber: field(req.form, 'serialNumber'),
      name: field(req.form, 'name'),
      catalogEntryId: field(req.form, 'catalogEntryId'),
      firmwareVersion: field(req.form, 'firmwareVersion'),
    };
    const q = field(req.form, 'q');
    // "Search" (or Enter, whose default button it is) sends the form back: nothing is registered.
    if (field(req.form, 'action') === 'search') return render(req, q, null, draft);
    const device = toNewDevice(draft);
    if (typeof device === 'string') return render(req, q, { status: 400, message: device, fields: { catalogEntryId: device } }, draft);
    try {
      const registered = await api.registerDevice(callerOf(req), device);
      const message = registered.created
        ? `“${registered.device.name}” is registered to your account.`
        : `“${registered.device.name}” was already registered to your account; its details are updated.`;
      return redirectTo('/devices', { flash: notice(message) });
    } catch (err) {
      return render(req, q, failureOf(err, req, { notFound: 'Not found.' }), draft);
    }
  }

  /** What the picker's script asks as the user types: only the results part, same markup as the page's. */
  async function catalogSearch(req: PageRequest): Promise<PageResponse> {
    const q = req.query.get('q') ?? '';
    return showPage(pickerResults({ q, chosen: '', results: await searchCatalog(api, callerOf(req), q) }));
  }

  return [
    { method: 'GET', pattern: '/devices', handler: requireSignIn((req) => render(req, req.query.get('q') ?? '')) },
    { method: 'POST', pattern: '/devices', handler: requireSignIn(register) },
    { method: 'GET', pattern: '/devices/catalog-search', handler: requireSignIn(catalogSearch) },
  ];
}
