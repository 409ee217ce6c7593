import type { paths } from '../../admin-ui/app/src/sdk/index.ts';

/** An endpoint as `GET /api/v1/gateway/endpoints/:id` reads it (credentials only as `{ set }`). */
export type Endpoint = paths['/api/v1/gateway/endpoints/{id}']['get']['responses'][200]['content']['application/json'];

/** A route of an endpoint. */
export type Route =
  paths['/api/v1/gateway/endpoints/{id}/routes']['get']['responses'][200]['content']['application/json']['items'][number];

/** A vendor preset (`GET /api/v1/gateway/presets`). */
export type Preset =
  paths['/api/v1/gateway/presets']['get']['responses'][200]['content']['application/json']['items'][number];

/** The `auth` of a create or PATCH body: a type and its settings, the secret only when replaced. */
export type AuthInput = NonNullable<
  paths['/api/v1/gateway/endpoints']['post']['requestBody']['content']['application/json']['auth']
>;
