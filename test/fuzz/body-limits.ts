/**
 * The body limit each operation applies, where it is set: identity's USER_BODY_LIMIT_BYTES (8 KiB),
 * the device service's BODY_LIMIT_BYTES (16 KiB), the import's IMPORT_MAX_BODY_BYTES (= the gateway's
 * MAX_BODY_BYTES, 16 MiB) and readJsonBody's DEFAULT_BODY_LIMIT_BYTES (64 KiB) for the rest. Not
 * imported: those constants are private to their services, and a silent change of one should make
 * this suite fail rather than follow it.
 */
const KIB = 1024;
const BODY_LIMIT_BYTES: Record<string, number> = {
  login: 8 * KIB,
  register: 8 * KIB,
  // Issue 32's identity operations: a password, an e-mail, a code or a token each.
  changePassword: 8 * KIB,
  requestPasswordReset: 8 * KIB,
  completePasswordReset: 8 * KIB,
  verifyEmail: 8 * KIB,
  confirmTwoFactor: 8 * KIB,
  completeTwoFactorLogin: 8 * KIB,
  disableTwoFactor: 8 * KIB,
  regenerateRecoveryCodes: 8 * KIB,
  deleteAccount: 8 * KIB,
  registerDevice: 16 * KIB,
  importCatalog: 16 * KIB * KIB,
  // The gateway's own cap on a secret-scanning report (LEAK_REPORT_MAX_BODY_BYTES), checked before keys sees it.
  reportLeakedSecrets: KIB * KIB,
};
const DEFAULT_BODY_LIMIT = 64 * KIB;

export const bodyLimitOf = (operationId: string): number => BODY_LIMIT_BYTES[operationId] ?? DEFAULT_BODY_LIMIT;

/** A JSON text of exactly `bytes` bytes: `value` followed by spaces (still valid JSON). */
export function jsonOfSize(value: unknown, bytes: number): Buffer {
  const text = Buffer.from(JSON.stringify(value), 'utf8');
  if (text.length > bytes) throw new Error(`${text.length} bytes do not fit in ${bytes}`);
  return Buffer.concat([text, Buffer.alloc(bytes - text.length, 0x20)]);
}
