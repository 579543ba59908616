import { auditCli } from '@acs/audit';
import { runCli } from '@acs/cli';
import { BILLING_AUDIT } from './domain/billing-audit.js';
import { BILLING_MIGRATIONS_DIR } from './service.js';

// The billing service's audit trail for operators: verify, export (NDJSON), prune. `npm run audit` runs it with the other services'.
runCli(auditCli(BILLING_AUDIT, BILLING_MIGRATIONS_DIR));
