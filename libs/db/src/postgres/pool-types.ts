import pg from 'pg';
import type { CustomTypesConfig } from 'pg';
import { ARRAY_PARSERS, SCALAR_PARSERS, type TextParser } from '../values/type-parsers.js';

const TEXT_PARSERS: Readonly<Record<number, TextParser>> = { ...SCALAR_PARSERS, ...ARRAY_PARSERS };

/**
 * Our parsers for this pool only. pg.types.setTypeParser would change them for every pg user
 * in the process, including libraries that expect pg's defaults.
 */
export const POOL_TYPES: CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    ((format ?? 'text') === 'text' ? TEXT_PARSERS[oid] : undefined) ?? pg.types.getTypeParser(oid, format),
};
