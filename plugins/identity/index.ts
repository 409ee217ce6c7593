import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { accountDataSubjectSource } from './data-subject-source.ts';
import { IdentityConfig } from './config.ts';
import { mfaRoutes } from './routes/mfa.ts';
import { oidcRoutes } from './routes/oidc.ts';
import { passwordResetRoutes } from './routes/password-reset.ts';
import { permissionRoutes } from './routes/permissions.ts';
import { roleRoutes } from './routes/roles.ts';
import { securitySettingsRoutes } from './routes/security-settings.ts';
import { sessionRoutes } from './routes/session.ts';
import { userRoutes } from './routes/users.ts';
import { createIdentityServices } from './services/index.ts';
import type { SecuritySettingsReader } from './services/security-settings.ts';
import { IDENTITY_PERMISSIONS } from './permissions.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const DAY_MS = 24 * 3600_000;

declare module '../../kernel/index.ts' {
  interface PluginServices {
    /** Read access to the security settings (e.g. the mail log's `mailLogRetentionDays`). */
    securitySettings: SecuritySettingsReader;
  }
}

/**
 * Identity and access on core-api: password sign-in with lockout, TOTP second factor (optionally
 * mandatory by role), logout and `/auth/me`, self-service and forced password reset, user and role
 * management, the permission list, the security settings and single sign-on with one OpenID Connect
 * provider (settings, sign-in, provisioning by verified e-mail, roles following a claim). Sessions, users and roles are kernel
 * tables, written only through the kernel's `sessions`, `users` and `roles` services; this plugin
 * stores second factors, reset tokens and the security settings.
 */
export default definePlugin({
  id: 'identity',
  processes: ['core-api'],
  permissions: IDENTITY_PERMISSIONS,
  // The profile blocks the security and single-sign-on settings whole (the specification's point 6).
  sandbox: { blockedPaths: ['/security-settings', '/oidc-settings'] },
  needs: [
    'db',
    'clock',
    'config',
    'sessions',
    'users',
    'roles',
    'permissions',
    'audit',
    'secretBox',
    'mail',
    'sharedState',
  ],
  // The gateway's outbound address policy for requests to the sign-in provider (core-api loads it).
  optional: ['outboundFetch'],
  config: IdentityConfig,
  migrations: path.join(here, 'migrations'),
  setup: (deps) => createIdentityServices(deps),
  provides: {
    // Read-only for other plugins; changes go through PUT /security-settings (validated, audited).
    securitySettings: ({ services }) => ({ get: () => services.settings.get() }),
  },
  // A person's staff account, reported (never erased) by the data-subject plugin.
  contributes: {
    dataSubjectSources: ({ users }) => accountDataSubjectSource(users),
  },
  schedules: [
    // Daily at 03:53 UTC, in one process of the cluster: reset tokens a day past their expiry go.
    {
      name: 'reset-tokens.purge',
      cron: '53 3 * * *',
      run: async ({ services, clock }) =>
        void (await services.resets.purgeExpired(new Date(clock.now().getTime() - DAY_MS))),
    },
  ],
  async routes(app, { services }) {
    await sessionRoutes(app, services);
    await mfaRoutes(app, services);
    await passwordResetRoutes(app, services);
    await userRoutes(app, services);
    await roleRoutes(app, services);
    await permissionRoutes(app, services);
    await securitySettingsRoutes(app, services);
    await oidcRoutes(app, services);
  },
  // Reset e-mails are sent after the answer; let the last ones finish before the database closes.
  onStop: ({ services }) => services.resets.settled(),
});
