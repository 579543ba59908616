import { z } from 'zod';

/**
 * Leak reports (issue 31): a secret-scanning service (GitHub's secret scanning partner program) posts the
 * secrets it found to the gateway's public path, without an API key; the gateway hands the raw report to
 * keys, which checks its ECDSA signature against the operator's public keys and revokes each key whose
 * secret (current or replaced) it names (docs/api-contract.md, "Leak reports").
 */
export const SECRET_SCANNING_REPORT_PATH = '/secret-scanning/github';
/** Gateway to keys: the raw report and its signature headers (signed like every internal call). */
export const LEAK_REPORT_INTERNAL_PATH = '/internal/keys/leak-reports';

/** GitHub's header names (case-insensitive on the wire). */
export const SCANNER_KEY_ID_HEADER = 'github-public-key-identifier';
export const SCANNER_SIGNATURE_HEADER = 'github-public-key-signature';

/** The largest report read (413 beyond) and the most secrets one report may name (400 beyond). */
export const LEAK_REPORT_MAX_BODY_BYTES = 1024 * 1024;
const LEAK_REPORT_MAX_TOKENS = 1000;

/** One match in a report: the secret, the scanner's name for its type, where it was found, and in what. */
const leakReportItemSchema = z.object({
  token: z.string().min(1).max(1024),
  type: z.string().max(200),
  url: z.string().max(4096).nullable().optional(),
  source: z.string().max(100).optional(),
});
export const leakReportSchema = z.array(leakReportItemSchema).min(1).max(LEAK_REPORT_MAX_TOKENS);
export type LeakReportItem = z.infer<typeof leakReportItemSchema>;

/** The answer, one item per reported secret: its SHA-256 (hex, never the secret), its type, and whether it was one of ours. */
export const leakReportAnswerSchema = z.array(
  z.object({
    token_hash: z.string(),
    token_type: z.string(),
    label: z.enum(['true_positive', 'false_positive']),
  }),
);
export type LeakReportAnswer = z.infer<typeof leakReportAnswerSchema>;

/** Gateway to keys: the report's bytes as received (base64, so the signature checks over exactly them) and its headers. */
export const leakReportRelaySchema = z.object({
  body: z.string().max(Math.ceil((LEAK_REPORT_MAX_BODY_BYTES * 4) / 3) + 4),
  keyIdentifier: z.string().max(512).nullable(),
  signature: z.string().max(1024).nullable(),
});
export type LeakReportRelay = z.infer<typeof leakReportRelaySchema>;
