import type { Queryable } from '@acs/db';
import type { Device } from '../domain/device.js';

interface DeviceRow {
  id: number;
  owner_user_id: number | string;
  serial_number: string;
  name: string;
  catalog_entry_id: number | null;
  firmware_version: string | null;
  registered_at: Date;
}

const COLUMNS = 'id, owner_user_id, serial_number, name, catalog_entry_id, firmware_version, registered_at';

function fromRow(row: DeviceRow): Device {
  return {
    id: Number(row.id),
    ownerUserId: Number(row.owner_user_id),
    serialNumber: row.serial_number,
    name: row.name,
    catalogEntryId: row.catalog_entry_id === null ? null : Number(row.catalog_entry_id),
    firmwareVersion: row.firmware_version,
    registeredAt: row.registered_at,
  };
}

export interface DeviceRegistration {
  ownerUserId: number;
  serialNumber: string;
  name: string;
  catalogEntryId: number | null;
  firmwareVersion: string | null;
}

/**
 * Registers a serial to an owner in one statement, safe under concurrency:
 * - a new serial is inserted (`created: true`);
 * - the owner's own serial is updated: name replaced, catalog entry and firmware replaced when
 *   given, kept when not (`created: false`);
 * - a serial of another owner matches the conflict but not the WHERE, so nothing is written and
 *   null comes back. Concurrent inserts of one serial wait on the unique index and then take one
 *   of the two last paths, so there is never a duplicate and never a unique-violation error.
 * `xmax = 0` holds only for a row version this statement inserted (a PostgreSQL idiom).
 */
export async function upsertOwnDevice(db: Queryable, input: DeviceRegistration): Promise<{ device: Device; created: boolean } | null> {
  const { rows } = await db.query<DeviceRow & { created: boolean }>(
    `INSERT INTO devices AS d (owner_user_id, serial_number, name, catalog_entry_id, firmware_version)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (serial_number) DO UPDATE SET
       name = EXCLUDED.name,
       catalog_entry_id = COALESCE(EXCLUDED.catalog_entry_id, d.catalog_entry_id),
       firmware_version = COALESCE(EXCLUDED.firmware_version, d.firmware_version)
     WHERE d.owner_user_id = EXCLUDED.owner_user_id
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    [input.ownerUserId, input.serialNumber, input.name, input.catalogEntryId, input.firmwareVersion],
  );
  const row = rows[0];
  return row ? { device: fromRow(row), created: row.created === true } : null;
}

/** One owner's devices, newest first; always filtered by owner (nobody sees another's devices). */
export async function listDevicesOfOwner(db: Queryable, ownerUserId: number, limit: number): Promise<Device[]> {
  const { rows } = await db.query<DeviceRow>(
    `SELECT ${COLUMNS} FROM devices WHERE owner_user_id = $1 ORDER BY registered_at DESC, id DESC LIMIT $2`,
    [ownerUserId, limit],
  );
  return rows.map(fromRow);
}

/** Erases every device of an owner (a deleted account); returns how many. */
export async function deleteDevicesOfOwner(db: Queryable, ownerUserId: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM devices WHERE owner_user_id = $1', [ownerUserId]);
  return rowCount ?? 0;
}
