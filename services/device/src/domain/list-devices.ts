import { DEVICES_LIST_LIMIT, type CatalogSummary } from '@acs/contracts';
import { listDevicesOfOwner } from '../data-access/devices-repository.js';
import { CatalogUnavailableError } from './catalog-client.js';
import type { DeviceDeps } from './deps.js';
import type { Device } from './device.js';

export interface DeviceList {
  devices: { device: Device; catalogEntry: CatalogSummary | null }[];
  catalogUnavailable: boolean;
}

/**
 * The caller's newest devices (at most DEVICES_LIST_LIMIT) with their catalog summaries, fetched
 * in one batched call. Listing does not fail when the catalog is down: the devices are this
 * service's own data, so they are answered with no summaries and `catalogUnavailable: true`.
 */
export async function listDevices(deps: DeviceDeps, userId: number, requestId: string): Promise<DeviceList> {
  const devices = await listDevicesOfOwner(deps.db, userId, DEVICES_LIST_LIMIT);
  const ids = devices.flatMap((device) => (device.catalogEntryId === null ? [] : [device.catalogEntryId]));
  let summaries = new Map<number, CatalogSummary>();
  let catalogUnavailable = false;
  if (ids.length > 0) {
    try {
      summaries = await deps.catalog.summaries(ids, requestId);
    } catch (err) {
      if (!(err instanceof CatalogUnavailableError)) throw err;
      deps.logger.warn({ err, requestId }, 'catalog not reachable; devices listed without catalog summaries');
      catalogUnavailable = true;
    }
  }
  return {
    devices: devices.map((device) => ({
      device,
      catalogEntry: device.catalogEntryId === null ? null : (summaries.get(device.catalogEntryId) ?? null),
    })),
    catalogUnavailable,
  };
}
