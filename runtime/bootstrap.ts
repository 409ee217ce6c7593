import type { Config } from '../kernel/config.ts';
import type { Logger } from '../kernel/logger.ts';
import type { UserDirectory } from '../kernel/users.ts';

/**
 * At first start, when no user exists, creates the administrator from CMS_ADMIN_EMAIL and
 * CMS_ADMIN_PASSWORD, or says how to create one. The password is never logged.
 */
export async function bootstrapFirstAdmin(deps: {
  users: UserDirectory;
  config: Config;
  logger: Logger;
}): Promise<void> {
  if ((await deps.users.count()) > 0) return;
  const { CMS_ADMIN_EMAIL: email, CMS_ADMIN_PASSWORD: password } = deps.config;
  if (!email || !password) {
    deps.logger.warn(
      'no user exists yet: set CMS_ADMIN_EMAIL and CMS_ADMIN_PASSWORD and restart, or run `npm run cms -- admin create --email <e-mail>`',
    );
    return;
  }
  await deps.users.create({ email, password, displayName: 'Administrator', roles: ['admin'] });
  deps.logger.info({ email }, 'first administrator created');
}
