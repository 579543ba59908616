export { defineAuditTable, type AuditTable } from './audit-table.js';
export {
  operatorActor,
  systemActor,
  userActor,
  type ActorType,
  type AuditActor,
  type AuditChange,
  type AuditEntry,
} from './audit-entry.js';
export { appendAudit, appendAuditMany, listAudit, pruneAudit, type AuditFilter } from './audit-repository.js';
export { verifyAuditChain, type ChainProblem, type ChainReport } from './verify-chain.js';
export { auditCli } from './audit-cli.js';
export { startAuditRetention } from './audit-retention.js';
export { auditFeedFields, auditRecordedPayload } from './audit-recorded.js';
export { auditView } from './audit-view.js';
export { startAuditRelay } from './audit-relay.js';
export { AUDIT_ERASED_ACTION, eraseUserFromAudit } from './audit-erasure.js';
