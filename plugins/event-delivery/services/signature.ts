import { createHmac } from 'node:crypto';

/** `X-Cms-Signature` value: `sha256=` + hex HMAC-SHA256(secret, timestamp + '.' + body), the secret's bytes as given. */
export function cmsSignature(secret: string, timestamp: number, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * The Standard Webhooks key of a secret: a `whsec_` value is base64 after the prefix (as Standard
 * Webhooks libraries expect); any other value is used as its UTF-8 bytes (give a library
 * `whsec_` + base64(value)).
 */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** `webhook-signature` value: `v1,` + base64 HMAC-SHA256(key, id + '.' + timestamp + '.' + body). */
export function standardWebhooksSignature(secret: string, id: string, timestamp: number, body: string): string {
  return (
    'v1,' + createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')
  );
}
