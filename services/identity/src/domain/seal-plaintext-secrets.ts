import type { Queryable } from '@acs/db';
import type { Logger } from '@acs/logger';
import { plaintextSecrets, replaceSecret } from '../data-access/two-factor-repository.js';
import { sealSecret, type TotpKey } from './totp-secret-box.js';

/**
 * The upgrade of secrets stored before encryption at rest (migration 013): run at every start, it
 * seals each 20-byte secret still there, a batch at a time, and finds none once done. Each UPDATE
 * keeps the row only if it still holds that plaintext, so replicas starting together do no harm.
 */
export async function sealPlaintextSecrets(db: Queryable, key: TotpKey, logger: Logger): Promise<number> {
  let sealed = 0;
  for (;;) {
    const batch = await plaintextSecrets(db, 500);
    for (const { userId, secret } of batch) await replaceSecret(db, userId, secret, sealSecret(key, userId, secret));
    sealed += batch.length;
    if (batch.length < 500) break;
  }
  if (sealed > 0) logger.info({ sealed }, 'TOTP secrets stored before encryption at rest are now encrypted');
  return sealed;
}
