import { Type } from '@sinclair/typebox';
import { emptyAnswer, type App } from '../../../kernel/index.ts';
import type { IdentityServices } from '../services/index.ts';
import { PasswordField, STRICT } from './shared.ts';

const ACCEPTED = 'If the address belongs to an active account, a link to reset the password has been sent.';

/** Self-service reset: request a link by e-mail, then set a new password with the token. */
export async function passwordResetRoutes(app: App, s: IdentityServices): Promise<void> {
  app.post(
    '/auth/forgot-password',
    {
      config: { public: true, rateLimit: s.addressLimits.forgotPassword },
      schema: {
        tags: ['auth'],
        body: Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }) }, STRICT),
        response: { 202: Type.Object({ message: Type.String() }) },
      },
    },
    async (request, reply) => {
      s.resets.request(request.body.email, request.ip);
      return reply.code(202).send({ message: ACCEPTED });
    },
  );

  app.post(
    '/auth/reset-password',
    {
      config: { public: true },
      schema: {
        tags: ['auth'],
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }), password: PasswordField }, STRICT),
        response: { 204: emptyAnswer('The password is set; every session of the account is revoked') },
      },
    },
    async (request, reply) => {
      await s.resets.reset(request.body.token, request.body.password);
      return reply.code(204).send();
    },
  );
}
