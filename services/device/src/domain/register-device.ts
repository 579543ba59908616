import type { CatalogSummary, DeviceRegisterRequest } from '@acs/contracts';
import { conflict, unavailable, unprocessable, type AppError } from '@acs/errors';
import { upsertOwnDevice } from '../data-access/devices-repository.js';
import { CatalogUnavailableError } from './catalog-client.js';
import type { DeviceDeps } from './deps.js';
import type { Device } from './device.js';

export interface Registered {
  device: Device;
  /** False when the caller had already registered this serial (answered 200, not 201). */
  created: boolean;
  catalogEntry: CatalogSummary | null;
}

/** Seconds a client should wait before retrying when the catalog could not be asked. */
const RETRY_AFTER_SECONDS = '5';

const catalogUnavailable = (cause: unknown): AppError =>
  unavailable('The catalog service is not reachable, so the catalog entry could not be checked; try again later', {
    cause,
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
  });

/** The named entry, asked of the catalog now; never an unchecked id. 422 unknown, 503 catalog down. */
async function assertCatalogEntryExists(deps: DeviceDeps, id: number, requestId: string): Promise<CatalogSummary> {
  let found: Map<number, CatalogSummary>;
  try {
    found = await deps.catalog.summaries([id], requestId);
  } catch (err) {
    if (err instanceof CatalogUnavailableError) throw catalogUnavailable(err);
    throw err;
  }
  const entry = found.get(id);
  if (!entry)
    throw unprocessable(
      `There is no catalog entry with id ${id}`,
      [{ path: 'body.catalogEntryId', message: 'No catalog entry has this id' }],
      'unknown_catalog_entry',
    );
  return entry;
}

/** Best effort, for a re-registration that did not name the entry again: null when the catalog is down. */
async function summaryIfReachable(deps: DeviceDeps, id: number, requestId: string): Promise<CatalogSummary | null> {
  try {
    return (await deps.catalog.summaries([id], requestId)).get(id) ?? null;
  } catch (err) {
    if (!(err instanceof CatalogUnavailableError)) throw err;
    deps.logger.warn({ err, requestId }, 'catalog not reachable; device answered without its catalog summary');
    return null;
  }
}

/**
 * Links a serial to the caller. New serial: created. The caller's own serial again: the same
 * device, with the name (and the catalog entry and firmware version, when given) updated, so a
 * firmware retry or an update report is safe. Another owner's serial: 409, naming nobody.
 */
export async function registerDevice(
  deps: DeviceDeps,
  userId: number,
  input: DeviceRegisterRequest,
  requestId: string,
): Promise<Registered> {
  const checked = input.catalogEntryId === undefined ? null : await assertCatalogEntryExists(deps, input.catalogEntryId, requestId);
  const result = await upsertOwnDevice(deps.db, {
    ownerUserId: userId,
    serialNumber: input.serialNumber,
    name: input.name,
    catalogEntryId: input.catalogEntryId ?? null,
    firmwareVersion: input.firmwareVersion ?? null,
  });
  if (!result) {
    deps.logger.info(
      { audit: 'device.register_refused', userId, serialNumber: input.serialNumber, requestId },
      'serial registered to another user',
    );
    throw conflict('This serial number is registered to another account', { code: 'serial_taken' });
  }
  const { device, created } = result;
  deps.logger.info(
    { audit: created ? 'device.registered' : 'device.reregistered', deviceId: device.id, userId, requestId },
    created ? 'device registered' : 'device registered again',
  );
  const catalogEntry =
    checked ?? (device.catalogEntryId === null ? null : await summaryIfReachable(deps, device.catalogEntryId, requestId));
  return { device, created, catalogEntry };
}
