import type { FastifyRequest } from 'fastify';
import {
  SESSION_COOKIE,
  forbidden,
  safeEqual,
  unauthorized,
  type Actor,
  type PermissionRegistry,
  type SessionService,
} from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';

/** The actor of calls made with `Authorization: Bearer DAM_SERVICE_TOKEN`. */
export const DAM_SERVICE_ACTOR: Actor = { type: 'system', id: null, label: 'dam-service' };

/**
 * Who may call the image endpoints and the service routes: a signed-in user or the bearer
 * `DAM_SERVICE_TOKEN` (compared in constant time). These routes are declared `public` for the
 * kernel and checked here, before the body is read.
 */
export class ServiceAuth {
  constructor(
    private readonly deps: { sessions: SessionService; permissions: PermissionRegistry; token: string | undefined },
  ) {}

  bearer(request: FastifyRequest): boolean {
    const header = request.headers.authorization;
    if (!this.deps.token || typeof header !== 'string' || !header.startsWith('Bearer ')) return false;
    return safeEqual(header.slice(7).trim(), this.deps.token);
  }

  async session(request: FastifyRequest): Promise<Actor | null> {
    const token = request.cookies?.[SESSION_COOKIE];
    return token ? await this.deps.sessions.resolve(token) : null;
  }

  /** Session or service token; 401 otherwise. Sets `request.actor`. */
  private async requireSessionOrToken(request: FastifyRequest): Promise<void> {
    if (this.bearer(request)) {
      request.actor = DAM_SERVICE_ACTOR;
      return;
    }
    // The kernel withholds the cookie of a cross-site write (its Origin check); name that refusal.
    if (request.sessionCookieWithheld)
      throw forbidden(
        'Cross-site request refused: the session cookie is not accepted from another origin',
        'CSRF_ORIGIN_REFUSED',
      );
    const actor = await this.session(request);
    if (!actor) throw unauthorized('A session or the service token is required', 'SESSION_OR_SERVICE_TOKEN_REQUIRED');
    request.actor = actor;
  }

  /**
   * Private files: the service token, or a signed-in user holding the key that reading the library
   * needs (`assets:read`), the same rule as `GET /api/v1/dam/assets`.
   */
  async mayRead(request: FastifyRequest): Promise<boolean> {
    if (this.bearer(request)) return true;
    const actor = await this.session(request);
    return actor !== null && this.deps.permissions.allows(actor, ASSET_KEYS.read);
  }

  /** Service routes: the token, or a signed-in user holding `key`. */
  async requireTokenOrPermission(request: FastifyRequest, key: string): Promise<void> {
    await this.requireSessionOrToken(request);
    if (request.actor.type === 'user' && !this.deps.permissions.allows(request.actor, key))
      throw forbidden(`Missing permission ${key}`, 'PERMISSION_REQUIRED');
  }
}
