import { z } from 'zod';

/** The largest value of an integer (int4) column: ids of devices and catalog entries (users' ids are bigint). */
export const INT4_MAX = 2_147_483_647;

/** Whether any row could have this id; one that cannot is simply unknown, never sent to the database. */
export const isPossibleRowId = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= INT4_MAX;

/** An id of a row in an integer column, as the database can hold it (1..2147483647). */
export const rowIdSchema = () => z.number().int().min(1).max(INT4_MAX);

/**
 * A reference to another resource's row that is looked up before use (a device's catalogEntryId).
 * The document states the real range, but an id past it is not malformed input: like any id no
 * row has, it is answered as unknown (422) by the lookup, so validation only requires a positive
 * integer here.
 */
export const rowReferenceSchema = () => z.number().int().positive().meta({ maximum: INT4_MAX });
