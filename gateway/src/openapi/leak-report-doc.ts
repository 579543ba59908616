import { LEAK_REPORT_MAX_BODY_BYTES, SECRET_SCANNING_REPORT_PATH, leakReportAnswerSchema, leakReportSchema } from '@acs/contracts';
import { jsonSchema } from './json-schema.js';
import { ownErrorResponses, successHeaders } from './responses.js';

/**
 * The one public write (issue 31): not in the route table (no API key, no scope), so described here, next to
 * the operations the builder derives from the contracts.
 */
export function leakReportPath(): Record<string, Record<string, unknown>> {
  return {
    [SECRET_SCANNING_REPORT_PATH]: {
      post: {
        operationId: 'reportLeakedSecrets',
        summary: 'Report leaked secrets (secret-scanning partners)',
        description:
          "For a secret-scanning service (GitHub's secret scanning partner program format), not for applications: no API key. The body is a JSON " +
          'array (at most 1000 items, 1 MiB) of {token, type, url, source}, signed with ECDSA P-256 SHA-256 over its exact bytes by a key the ' +
          'operator configured (SECRET_SCANNING_PUBLIC_KEYS). Each key whose current or replaced secret is a token is revoked at once on every ' +
          'gateway (revokedReason exposed), with an api_key.exposed event and an audit entry. Unsigned (400), unknown key (401) or badly signed ' +
          '(401) reports change nothing. The answer labels each token by its SHA-256, never echoing it. 60 reports a minute per gateway.',
        security: [],
        parameters: [
          {
            in: 'header',
            name: 'Github-Public-Key-Identifier',
            required: true,
            description: 'Which configured public key signed the report',
            schema: { type: 'string' },
          },
          {
            in: 'header',
            name: 'Github-Public-Key-Signature',
            required: true,
            description: 'Base64 of the DER ECDSA (P-256, SHA-256) signature of the raw body',
            schema: { type: 'string' },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(leakReportSchema) } } },
        responses: {
          200: {
            description: 'One label per token: true_positive when it is (or was) the secret of one of our keys, which is now revoked',
            headers: successHeaders(),
            content: { 'application/json': { schema: jsonSchema(leakReportAnswerSchema) } },
          },
          ...ownErrorResponses({
            400: 'Signature headers missing (signature_missing), or not a JSON array of at most 1000 items',
            401: 'Signed by an unknown key (unknown_signing_key), or the signature does not verify (invalid_signature)',
            404: 'Leak reports are not enabled on this deployment (secret_scanning_off)',
            413: `Report over ${LEAK_REPORT_MAX_BODY_BYTES} bytes`,
            429: 'More than 60 reports a minute reached this gateway; see Retry-After',
            503: 'The keys service is unreachable',
            // What node:http and the gateway answer before any operation runs, as for every operation.
            408: 'The request did not arrive in time',
            417: 'An Expect header other than 100-continue',
            431: 'Request headers too large',
            500: 'Unexpected failure (a defect); the body never holds internals',
            502: 'The keys service failed',
            504: 'The keys service did not answer in time',
          }),
        },
      },
    },
  };
}
