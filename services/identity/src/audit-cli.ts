import { auditCli } from '@acs/audit';
import { runCli } from '@acs/cli';
import { IDENTITY_AUDIT } from './domain/account-audit.js';
import { IDENTITY_MIGRATIONS_DIR } from './service.js';

// The identity service's audit trail for operators: verify, export (NDJSON), prune. `npm run audit` runs it with the other services'.
runCli(auditCli(IDENTITY_AUDIT, IDENTITY_MIGRATIONS_DIR));
