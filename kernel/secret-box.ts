import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { unavailable } from './errors.ts';
import type { Logger } from './logger.ts';

const KEY_NAME = /^[A-Z][A-Z0-9_]*_KEY$/;

/**
 * AES-256-GCM encryption with named keys taken from environment variables (`TOTP_ENCRYPTION_KEY`,
 * `MAIL_SETTINGS_ENCRYPTION_KEY`, ...). Ciphertext carries the key name so a rotated or missing key is
 * reported by name. Outside production a missing key is generated once under the data folder so a
 * fresh install works; production requires the variable.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly opts: { production: boolean; dataDir: string; logger: Logger },
  ) {}

  encrypt(keyName: string, plaintext: string): string {
    const key = this.key(keyName);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', keyName, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(
      ':',
    );
  }

  /** Throws when the stored value was sealed with another key (e.g. after losing the key). */
  decrypt(sealed: string): string {
    const [version, keyName, iv, tag, body] = sealed.split(':');
    if (version !== 'v1' || !keyName || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key(keyName), Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }

  /**
   * A keyed fingerprint of `text` (HMAC-SHA-256 with the named key, `hmac:` and 32 hex digits): the
   * same text gives the same value, and without the key it cannot be guessed from a list of candidates
   * the way a plain hash can (an e-mail address in an audit row).
   */
  fingerprint(keyName: string, text: string): string {
    return `hmac:${createHmac('sha256', this.key(keyName)).update(text, 'utf8').digest('hex').slice(0, 32)}`;
  }

  hasKey(keyName: string): boolean {
    return Boolean(this.env[keyName]) || !this.opts.production;
  }

  private key(keyName: string): Buffer {
    if (!KEY_NAME.test(keyName)) throw new Error(`invalid key name ${keyName}`);
    const cached = this.keys.get(keyName);
    if (cached) return cached;
    const material = this.env[keyName] ?? this.localKey(keyName);
    const key = decodeKey(material);
    this.keys.set(keyName, key);
    return key;
  }

  private localKey(keyName: string): string {
    if (this.opts.production) throw unavailable(`${keyName} is not set`, 'SECRET_KEY_MISSING');
    const dir = path.join(this.opts.dataDir, 'keys');
    const file = path.join(dir, keyName);
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
    // Only the keys folder is private: a recursive mkdir would give every folder it creates above it
    // (the data folder too) mode 0700, which the embedded database's `postgres` user cannot enter.
    mkdirSync(this.opts.dataDir, { recursive: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const generated = randomBytes(32).toString('hex');
    writeFileSync(file, generated + '\n', { mode: 0o600 });
    this.opts.logger.warn(
      { keyName, file },
      `${keyName} is not set: generated a local key; set it explicitly in production`,
    );
    return generated;
  }
}

/** 64 hex chars or 32 base64 bytes are used as they are; any other passphrase is hashed to 32 bytes. */
function decodeKey(material: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(material)) return Buffer.from(material, 'hex');
  const b64 = Buffer.from(material, 'base64');
  if (b64.length === 32 && /^[A-Za-z0-9+/=_-]+$/.test(material)) return b64;
  return createHash('sha256').update(material, 'utf8').digest();
}
