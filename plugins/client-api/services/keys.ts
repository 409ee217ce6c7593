import { hashToken, newToken } from '../../../kernel/index.ts';

export const KEY_PREFIX = 'wbk_';
/** Characters of a key shown in lists: `wbk_` and the first 8 random characters. */
const SHOWN = KEY_PREFIX.length + 8;

/** A new key: `wbk_` + 43 base64url characters (256 random bits); only its SHA-256 is stored. */
export function newClientKey(): { key: string; prefix: string; hash: string } {
  const key = `${KEY_PREFIX}${newToken(32)}`;
  return { key, prefix: key.slice(0, SHOWN), hash: hashToken(key) };
}
