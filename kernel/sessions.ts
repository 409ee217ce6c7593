import type { UserActor } from './actor.ts';
import type { Clock } from './clock.ts';
import type { Db, Tx } from './database.ts';
import { hashToken, newToken } from './passwords.ts';

export const SESSION_COOKIE = 'cms_session';
const LAST_SEEN_RESOLUTION_MS = 60_000;
const PURGE_AFTER_MS = 7 * 24 * 3600_000;

interface SessionRow {
  session_id: string;
  last_seen_at: Date;
  user_id: string;
  email: string;
  display_name: string;
  roles: string[] | null;
  permissions: string[] | null;
}

/**
 * Server-side sessions. The cookie holds a 256-bit random token; the table holds only its SHA-256.
 * Logout and password reset revoke; rows are purged a week after expiry or revocation.
 */
export class SessionService {
  constructor(private readonly deps: { db: Db; clock: Clock; ttlHours: number }) {}

  async create(
    userId: string,
    meta: { ip?: string; userAgent?: string },
    trx?: Tx,
  ): Promise<{ token: string; id: string; expiresAt: Date }> {
    const token = newToken(32);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + this.deps.ttlHours * 3600_000);
    const [row] = await (trx ?? this.deps.db)('sessions')
      .insert({
        token_hash: hashToken(token),
        user_id: userId,
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
        ip: meta.ip ?? null,
        user_agent: meta.userAgent?.slice(0, 512) ?? null,
      })
      .returning('id');
    return { token, id: row.id, expiresAt };
  }

  /** The active user behind a token, or null (unknown, expired, revoked, or user deactivated). */
  async resolve(token: string): Promise<UserActor | null> {
    if (!token || token.length > 128) return null;
    const now = this.deps.clock.now();
    const result = await this.deps.db.raw<{ rows: SessionRow[] }>(
      `SELECT s.id AS session_id, s.last_seen_at, u.id AS user_id, u.email, u.display_name,
              array_agg(r.name) FILTER (WHERE r.name IS NOT NULL) AS roles,
              array_agg(DISTINCT p) FILTER (WHERE p IS NOT NULL) AS permissions
         FROM sessions s
         JOIN users u ON u.id = s.user_id AND u.active
         LEFT JOIN user_roles ur ON ur.user_id = u.id
         LEFT JOIN roles r ON r.id = ur.role_id
         LEFT JOIN LATERAL unnest(r.permissions) p ON true
        WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ?
        GROUP BY s.id, u.id`,
      [hashToken(token), now],
    );
    const row = result.rows[0];
    if (!row) return null;
    if (now.getTime() - new Date(row.last_seen_at).getTime() > LAST_SEEN_RESOLUTION_MS) {
      // Coarse "last seen": one write a minute per session, not one per request.
      await this.deps.db('sessions').where({ id: row.session_id }).update({ last_seen_at: now });
    }
    return {
      type: 'user',
      id: row.user_id,
      email: row.email,
      displayName: row.display_name,
      roles: [...new Set(row.roles ?? [])].sort(),
      permissions: new Set(row.permissions ?? []),
      sessionId: row.session_id,
    };
  }

  async revoke(sessionId: string, trx?: Tx): Promise<void> {
    await (trx ?? this.deps.db)('sessions')
      .where({ id: sessionId })
      .whereNull('revoked_at')
      .update({ revoked_at: this.deps.clock.now() });
  }

  async revokeAllForUser(userId: string, trx?: Tx): Promise<void> {
    await (trx ?? this.deps.db)('sessions')
      .where({ user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: this.deps.clock.now() });
  }

  /** Revokes every open session of these users in one statement, however many they are. */
  async revokeAllForUsers(userIds: readonly string[], trx?: Tx): Promise<void> {
    if (!userIds.length) return;
    await (trx ?? this.deps.db)('sessions')
      .whereRaw('user_id = ANY(?::uuid[])', [[...userIds]])
      .whereNull('revoked_at')
      .update({ revoked_at: this.deps.clock.now() });
  }

  /** Deletes rows a week after they expired or were revoked. Returns how many. */
  async purge(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - PURGE_AFTER_MS);
    return this.deps.db('sessions').whereRaw('coalesce(revoked_at, expires_at) < ?', [cutoff]).delete();
  }
}
