import { type Dispatcher, Pool } from 'undici';
import { signContext } from '@acs/auth';
import { CATALOG_SUMMARIES_PATH, catalogSummariesResponseSchema, isPossibleRowId, type CatalogSummary } from '@acs/contracts';

/**
 * How the device service learns which catalog entries exist: a synchronous, signed call to the
 * catalog's internal summaries endpoint, with a deadline. Why not catalog events and a local
 * replica? Registering a device is rare (once per device, plus firmware retries), the answer must
 * be current (an entry imported a second ago must be accepted at once), and a replica would be a
 * second copy of the catalog to keep in step, backfill and repair. The price is that registration
 * with a catalogEntryId needs the catalog up: when it is not, the caller gets 503 and retries,
 * and an unchecked id is never stored.
 */
export interface CatalogClient {
  /** Summaries of the ids that exist (unknown ids are left out). Throws CatalogUnavailableError. */
  summaries(ids: readonly number[], requestId: string): Promise<Map<number, CatalogSummary>>;
  close(): Promise<void>;
}

/** The catalog could not be asked: not reachable, too slow, or it answered something unexpected. */
export class CatalogUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogUnavailableError';
  }
}

/** The catalog's internal endpoint takes at most this many ids per call. */
const MAX_IDS_PER_CALL = 1000;

export function createCatalogClient(catalogUrl: string, internalSecret: string, timeoutMs: number): CatalogClient {
  const pool = new Pool(new URL(catalogUrl).origin, {
    connections: 8,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });

  async function ask(ids: readonly number[], requestId: string): Promise<CatalogSummary[]> {
    const path = CATALOG_SUMMARIES_PATH;
    // Signed exactly like the gateway's own calls: no key, no scopes, this request's id.
    const { context, signature } = signContext(internalSecret, 'catalog', 'POST', path, { requestId, keyId: null, scopes: [] });
    let response: Dispatcher.ResponseData;
    try {
      response = await pool.request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId, 'x-acs-context': context, 'x-acs-signature': signature },
        body: JSON.stringify({ ids }),
        // One deadline for the whole call; the pool's timeouts bound each phase as well.
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new CatalogUnavailableError('The catalog service is not reachable', { cause: err });
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => {});
      throw new CatalogUnavailableError(`The catalog service answered ${response.statusCode}`);
    }
    let json: unknown;
    try {
      json = await response.body.json();
    } catch (err) {
      throw new CatalogUnavailableError('The catalog service answer could not be read', { cause: err });
    }
    const parsed = catalogSummariesResponseSchema.safeParse(json);
    if (!parsed.success) throw new CatalogUnavailableError('The catalog service answered an unexpected body');
    return parsed.data.entries;
  }

  return {
    async summaries(ids, requestId) {
      // An id past the column's range (2147483648) is one no entry has: unknown, so not asked.
      const unique = [...new Set(ids)].filter(isPossibleRowId);
      const found = new Map<number, CatalogSummary>();
      for (let start = 0; start < unique.length; start += MAX_IDS_PER_CALL) {
        for (const entry of await ask(unique.slice(start, start + MAX_IDS_PER_CALL), requestId)) found.set(entry.id, entry);
      }
      return found;
    },
    close: () => pool.close(),
  };
}
