import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of the key
// bytes; each signature is `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), and
// webhook-signature lists one per live secret, separated by spaces.

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** One `v1,<base64>` signature of a message with one secret. */
function signatureWith(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt, signed with every live secret (the current one first). */
export function webhookHeaders(
  secrets: readonly string[],
  webhookId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => signatureWith(secret, webhookId, timestampSeconds, body)).join(' '),
  };
}
