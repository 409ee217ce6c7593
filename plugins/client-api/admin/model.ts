import type { ApiAnswer } from '../../admin-ui/app/src/sdk/index.ts';

/** An API client as `/api/v1/gateway/clients/:id` reads it: never a key, only their prefixes. */
export type ApiClient = ApiAnswer<'/api/v1/gateway/clients/{id}', 'get'>;

/** A key of a client: `prefix` is `wbk_` and the first characters, enough to recognise it, never to use it. */
export type ClientKey = ApiClient['keys'][number];

export const liveKeys = (c: ApiClient) => c.keys.filter((k) => !k.revokedAt);

/** Query key of everything client-api's screens cache. */
export const CLIENTS_KEY = ['client-api', 'clients'];
