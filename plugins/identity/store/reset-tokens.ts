import type { Db, Tx } from '../../../kernel/index.ts';

/** Password reset tokens, stored as SHA-256 only; a token is usable once, before it expires. */
export class ResetTokenStore {
  constructor(private readonly db: Db) {}

  async insert(userId: string, tokenHash: string, now: Date, expiresAt: Date, trx?: Tx): Promise<void> {
    await (trx ?? this.db)('identity_reset_tokens').insert({
      user_id: userId,
      token_hash: tokenHash,
      created_at: now,
      expires_at: expiresAt,
    });
  }

  /** The user a usable token belongs to, without using it. */
  async peek(tokenHash: string, now: Date): Promise<string | null> {
    const row = await this.db('identity_reset_tokens')
      .where({ token_hash: tokenHash })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .first('user_id');
    return row?.user_id ?? null;
  }

  /**
   * Uses the token and voids every other open token of the same user (one reset per request is
   * enough). Returns the user id, or null when the token was used or expired meanwhile.
   */
  async consume(tokenHash: string, now: Date, trx: Tx): Promise<string | null> {
    const [row] = await trx('identity_reset_tokens')
      .where({ token_hash: tokenHash })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now })
      .returning('user_id');
    if (!row) return null;
    await this.voidForUser(row.user_id, now, trx);
    return row.user_id as string;
  }

  async voidForUser(userId: string, now: Date, trx: Tx): Promise<void> {
    await trx('identity_reset_tokens').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
  }

  /** Deletes tokens that expired before `cutoff`. */
  async purge(cutoff: Date): Promise<number> {
    return this.db('identity_reset_tokens').where('expires_at', '<', cutoff).delete();
  }
}
