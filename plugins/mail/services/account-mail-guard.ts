import { type Actor, HttpError, type PermissionRegistry } from '../../../kernel/index.ts';

/** Every key: what changing the delivery of account mail amounts to. */
const ALL_KEYS = '*';

/** The templates that carry a password-reset link. */
export const ACCOUNT_TEMPLATE_KEYS: ReadonlySet<string> = new Set(['password-reset', 'password-reset-forced']);

/**
 * Password-reset mail goes out through the default settings and the account templates: whoever
 * chooses the provider (or the link's text) can receive any account's reset link and take that
 * account over, administrators included. So, as for the single-sign-on settings, changing them needs
 * every key (`*`); `mail:manage` keeps the websites' own settings, the other templates, the log and
 * the test mail.
 */
export class AccountMailGuard {
  constructor(private readonly permissions: PermissionRegistry) {}

  require(actor: Actor, what: string): void {
    if (!this.permissions.allows(actor, ALL_KEYS))
      throw new HttpError(
        403,
        'PERMISSION_ESCALATION',
        `Only a holder of ${ALL_KEYS} may change ${what}: it decides where password-reset links go`,
      );
  }

  /** For a template change: the key it has now and the key it would get. */
  requireForTemplate(actor: Actor, keys: ReadonlyArray<string | undefined>): void {
    if (keys.some((k) => k !== undefined && ACCOUNT_TEMPLATE_KEYS.has(k)))
      this.require(actor, 'the password-reset templates');
  }
}
