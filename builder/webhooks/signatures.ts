// Webhook secrets and signatures, as the Standard Webhooks specification defines them
// (standardwebhooks.com): a secret is `whsec_` and the base64 of its key bytes; a message is
// signed with HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, and the
// `webhook-signature` header carries one `v1,{base64}` per secret in force, space-separated, so a
// receiver that has either of two secrets (during a rotation) verifies the message.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
/** 24 random bytes: 192 bits, the size the specification's own libraries generate. */
const SECRET_BYTES = 24;

export function newSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The `webhook-signature` value for a message, signed with each secret given (the current one first). */
export function signatureHeader(secrets: readonly string[], messageId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`).join(' ');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}
