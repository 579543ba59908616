/**
 * Limits of one import request (POST /api/Dac/import), documented in the README and the OpenAPI
 * description. The CLI splits a file into batches of IMPORT_MAX_ROWS.
 *
 * - IMPORT_MAX_BODY_BYTES is the gateway's MAX_BODY_BYTES (16 MiB): a larger body is refused with
 *   413 before it is read any further. Real entries are 250-450 bytes, so 20,000 of them fit.
 * - IMPORT_MAX_ROWS bounds what one request costs: one JSON.parse of at most 16 MiB, one zod pass,
 *   one jsonb parameter and one INSERT statement (a few hundred milliseconds, tens of MB of heap).
 *   More rows are refused with 413 as well: like the byte limit it is a size limit of the request
 *   entity, and the fix is the same (split the file), unlike a 400 that asks for other content.
 * - IMPORT_MAX_DETAILS caps the per-row problems returned, so a bad 20,000-row file does not
 *   produce a multi-megabyte error; the message states the full count.
 */
export const IMPORT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 20_000;
export const IMPORT_MAX_DETAILS = 100;
