import { createHmac } from 'node:crypto';
import { safeEqual } from '../../../kernel/index.ts';

const UUID_HEX = /^[0-9a-f]{32}$/;

/**
 * Upload tickets: `<upload id as 32 hex><expiry, epoch seconds in base 36>.<signature>`, signature =
 * the first 128 bits of HMAC-SHA256(UPLOAD_TOKEN_SECRET, payload) in base64url. Short enough for a
 * path segment; single use is kept in the database (the ticket only names the row and its expiry).
 */
export class UploadTickets {
  constructor(private readonly secret: string) {}

  sign(uploadId: string, expiresAt: Date): string {
    const payload = `${uploadId.replace(/-/g, '')}${Math.floor(expiresAt.getTime() / 1000).toString(36)}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** The upload id of a well-signed, unexpired ticket, else null. */
  verify(ticket: string, now: Date): string | null {
    const [payload, signature, extra] = ticket.split('.');
    if (
      !payload ||
      !signature ||
      extra !== undefined ||
      payload.length > 48 ||
      !safeEqual(signature, this.mac(payload))
    )
      return null;
    const hex = payload.slice(0, 32);
    const expires = Number.parseInt(payload.slice(32), 36);
    if (!UUID_HEX.test(hex) || !Number.isSafeInteger(expires) || expires * 1000 < now.getTime()) return null;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, 16).toString('base64url');
  }
}
