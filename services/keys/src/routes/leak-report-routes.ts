import { createHash } from 'node:crypto';
import { systemActor } from '@acs/audit';
import { Router, parseInput, readJsonBody, type AppState } from '@acs/http';
import {
  LEAK_REPORT_INTERNAL_PATH,
  LEAK_REPORT_MAX_BODY_BYTES,
  leakReportRelaySchema,
  leakReportSchema,
  type LeakReportAnswer,
} from '@acs/contracts';
import { errorOf, notFound } from '@acs/errors';
import type { KeysDeps } from '../domain/deps.js';
import { reportLeakedSecrets } from '../domain/report-leak.js';
import { checkReportSignature, type ScannerKeys } from '../domain/scanner-signature.js';

/** The audit trail's name for changes a leak report made: the system, on a scanner's word. */
const SECRET_SCANNING_ACTOR = systemActor('secret_scanning');

function parseReport(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw errorOf('bad_request', 'The report is not valid JSON', { code: 'invalid_json' });
  }
}

/**
 * The gateway relays a secret-scanning report here (SECRET_SCANNING_REPORT_PATH, public, no API key): the
 * signature first, then the report; the answer labels each secret (GitHub's format), hashed, never echoed.
 */
export function leakReportRoutes(deps: KeysDeps, scannerKeys: ScannerKeys): Router<AppState> {
  const router = new Router<AppState>();
  router.post(LEAK_REPORT_INTERNAL_PATH, async (ctx) => {
    if (scannerKeys.size === 0)
      throw notFound('Leak reports are not enabled here (SECRET_SCANNING_PUBLIC_KEYS is not set)', 'secret_scanning_off');
    const relay = parseInput(leakReportRelaySchema, await readJsonBody(ctx, 2 * LEAK_REPORT_MAX_BODY_BYTES), 'body');
    const raw = Buffer.from(relay.body, 'base64');
    checkReportSignature(scannerKeys, relay.keyIdentifier, relay.signature, raw);
    const items = parseInput(leakReportSchema, parseReport(raw), 'body');
    const outcomes = await reportLeakedSecrets(
      { ...deps, actor: SECRET_SCANNING_ACTOR, logger: ctx.state.log },
      items.map((item) => ({ secret: item.token, source: 'secret_scanning', url: item.url ?? null })),
    );
    const answer: LeakReportAnswer = items.map((item, index) => ({
      token_hash: createHash('sha256').update(item.token).digest('hex'),
      token_type: item.type,
      label: outcomes[index]!.keyIds.length > 0 ? 'true_positive' : 'false_positive',
    }));
    ctx.body = answer;
  });
  return router;
}
