import { Type } from '@sinclair/typebox';
import { requestContext, type App, PASSWORD_MAX_LENGTH } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';
import { STRICT } from './shared.ts';

// The public sandbox profile never shows or changes the security settings.
const access = { permission: 'settings:manage', sandbox: 'block' } as const;

// A type list rather than a union: with ajv's type coercion a union would turn null into 0 first.
const RetentionDays = Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: 36500 });

const SettingsBody = Type.Object({
  mfaRequiredRoles: Type.Array(Type.String()),
  passwordPolicy: Type.Object({ minLength: Type.Integer(), requireThreeClasses: Type.Boolean() }),
  mailLogRetentionDays: RetentionDays,
});

const UpdateBody = Type.Object(
  {
    mfaRequiredRoles: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    passwordPolicy: Type.Optional(
      Type.Object(
        {
          minLength: Type.Optional(Type.Integer({ minimum: 8, maximum: PASSWORD_MAX_LENGTH })),
          requireThreeClasses: Type.Optional(Type.Boolean()),
        },
        STRICT,
      ),
    ),
    mailLogRetentionDays: Type.Optional(RetentionDays),
  },
  STRICT,
);

/** GET/PUT /security-settings (methods and body are this plugin's design; see README). */
export async function securitySettingsRoutes(app: App, s: IdentityServices): Promise<void> {
  app.get(
    '/security-settings',
    { config: access, schema: { tags: ['settings'], response: { 200: SettingsBody } } },
    async () => s.settings.get(),
  );

  app.put(
    '/security-settings',
    { config: access, schema: { tags: ['settings'], body: UpdateBody, response: { 200: SettingsBody } } },
    async (request) => s.settings.update(requestContext(request), request.body),
  );
}
