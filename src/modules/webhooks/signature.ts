import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks secret format). */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256, keyed with the secret's decoded bytes,
 * over `<webhook-id>.<webhook-timestamp>.<body>`. Several secrets give space-separated signatures.
 */
export function sign(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
