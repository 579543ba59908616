import { auditCli } from '@acs/audit';
import { runCli } from '@acs/cli';
import { KEYS_AUDIT } from './events/keys-audit.js';
import { KEYS_MIGRATIONS_DIR } from './service.js';

// The keys service's audit trail for operators: verify, export (NDJSON), prune. `npm run audit` runs it with the other services'.
runCli(auditCli(KEYS_AUDIT, KEYS_MIGRATIONS_DIR));
