import type { App } from '../../../kernel/index.ts';
import type { ClientApiServices } from '../services/index.ts';
import { ClientMeView } from './answers.ts';
import { clientOf } from './client-scope.ts';

/** GET /client/v1/me: who the caller is to the gateway, never a secret. */
export async function clientMeRoutes(app: App, services: ClientApiServices): Promise<void> {
  const config = { public: true, rateLimit: services.rateLimiter.rule };
  app.get(
    '/client/v1/me',
    { config, schema: { tags: ['client'], response: { 200: ClientMeView } } },
    async (request) => {
      const { client, scopeList } = clientOf(request);
      return {
        id: client.id,
        name: client.name,
        authMode: client.auth_mode,
        status: client.status,
        scopes: scopeList,
        limits: { requestsPerMinute: client.limits.requestsPerMinute ?? services.defaultRequestsPerMinute },
        allowedAddresses: client.allowed_addresses,
        expiresAt: client.expires_at?.toISOString() ?? null,
        rateLimitStore: services.rateLimiter.state(),
      };
    },
  );
}
