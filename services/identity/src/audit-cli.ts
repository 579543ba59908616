import { auditCli } from '@acs/audit';
import { runCli } from '@acs/cli';
import { pruneFeed } from './data-access/audit-feed-repository.js';
import { IDENTITY_AUDIT } from './domain/account-audit.js';
import { IDENTITY_MIGRATIONS_DIR } from './service.js';

// The identity service's audit trail for operators: verify, export (NDJSON), prune. `npm run audit` runs it with the other services'.
// prune also deletes the old entries of the account page's feed (every service's copies), as AUDIT_RETENTION_DAYS does.
runCli(auditCli(IDENTITY_AUDIT, IDENTITY_MIGRATIONS_DIR, { what: "entries of the account page's feed", prune: pruneFeed }));
