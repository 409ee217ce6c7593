import type { ApiAnswer, ApiBody } from '../../admin-ui/app/src/sdk/index.ts';

/** An endpoint as `GET /api/v1/gateway/endpoints/:id` reads it (credentials only as `{ set }`). */
export type Endpoint = ApiAnswer<'/api/v1/gateway/endpoints/{id}', 'get'>;

/** A route of an endpoint. */
export type Route = ApiAnswer<'/api/v1/gateway/endpoints/{id}/routes', 'get'>['items'][number];

/** A vendor preset (`GET /api/v1/gateway/presets`). */
export type Preset = ApiAnswer<'/api/v1/gateway/presets', 'get'>['items'][number];

/** The `auth` of a create or PATCH body: a type and its settings, the secret only when replaced. */
export type AuthInput = NonNullable<ApiBody<'/api/v1/gateway/endpoints', 'post'>['auth']>;
