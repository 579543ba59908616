import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import type { SecretBox } from './secret-box.js';
import type { UrlPolicy } from './url-policy.js';

/** What the use cases need; built once in service.ts and passed down. */
export interface WebhooksDeps {
  db: Db;
  logger: Logger;
  secrets: SecretBox;
  urlPolicy: UrlPolicy;
  /** Called after a commit that made deliveries due now, so the sender looks at once rather than at its next poll. */
  wakeSender(): void;
}
