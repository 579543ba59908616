import { z } from 'zod';
import { catalogSummarySchema } from './catalog-internal.js';
import { rowIdSchema, rowReferenceSchema } from './row-id.js';

/**
 * Devices registered to users (services/device). Serial numbers are what firmware reports: letters,
 * digits and . _ : - only, compared exactly (case-sensitive), so a serial never needs escaping in
 * logs or URLs and two spellings of one serial cannot both be "the same device".
 */
const DEVICE_SERIAL_PATTERN = /^[A-Za-z0-9._:-]+$/;
/** GET /api/Devices lists at most this many devices, the newest first. */
export const DEVICES_LIST_LIMIT = 500;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse control characters (NUL to US, and DEL)
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

/**
 * Body of POST /api/Devices/Register. Strict: an unknown field (a firmware typo such as
 * "serial" or "firmware") is refused with 400 instead of being silently dropped.
 */
export const deviceRegisterRequestSchema = z.strictObject({
  serialNumber: z.string().min(1).max(64).regex(DEVICE_SERIAL_PATTERN, 'Expected letters, digits and . _ : - only'),
  name: z.string().trim().min(1).max(100).regex(NO_CONTROL_CHARACTERS, 'Control characters are not allowed'),
  /** An entry of the catalog (GET /api/Dac); checked with the catalog service before it is stored. */
  catalogEntryId: rowReferenceSchema().optional().describe('id of an entry of GET /api/Dac; an id no entry has gives 422'),
  firmwareVersion: z.string().trim().min(1).max(32).regex(NO_CONTROL_CHARACTERS, 'Control characters are not allowed').optional(),
});

/** The short summary of a device's catalog entry (the same as the catalog's internal summary). */
const deviceCatalogEntrySchema = catalogSummarySchema;

export const deviceSchema = z.object({
  id: rowIdSchema(),
  serialNumber: z.string(),
  name: z.string(),
  catalogEntryId: rowIdSchema().nullable(),
  firmwareVersion: z.string().nullable(),
  /** ISO 8601 UTC; the time of the first registration (a re-registration keeps it). */
  registeredAt: z.iso.datetime(),
  /** Null when the device names no entry, or when its entry could not be looked up. */
  catalogEntry: deviceCatalogEntrySchema.nullable(),
});

/**
 * Body of GET /api/Devices: the caller's newest devices first, at most DEVICES_LIST_LIMIT.
 * `catalogUnavailable` is true when the catalog could not be asked for the summaries: the devices
 * are still listed, every `catalogEntry` is then null.
 */
export const deviceListResponseSchema = z.object({
  items: z.array(deviceSchema),
  catalogUnavailable: z.boolean(),
});

export type DeviceRegisterRequest = z.infer<typeof deviceRegisterRequestSchema>;
export type DeviceView = z.infer<typeof deviceSchema>;
export type DeviceListResponseBody = z.infer<typeof deviceListResponseSchema>;
