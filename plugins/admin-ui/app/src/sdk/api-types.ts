import type { paths } from '../api/schema.d.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;

/**
 * The JSON a route answers with `status` (200 unless given), as `/openapi.json` declares it:
 * `ApiAnswer<'/auth/roles', 'get'>['roles'][number]` is a role. Screens take their record types from
 * here rather than copying the server's shapes, so a changed route breaks the type check.
 */
export type ApiAnswer<P extends keyof paths, M extends Method, S extends number = 200> = paths[P] extends {
  [K in M]: { responses: infer R };
}
  ? S extends keyof R
    ? JsonOf<R[S]>
    : never
  : never;

/** The JSON body a route accepts (`ApiBody<'/auth/roles', 'post'>`). */
export type ApiBody<P extends keyof paths, M extends Method> = paths[P] extends {
  [K in M]: { requestBody?: infer B };
}
  ? JsonOf<NonNullable<B>>
  : never;
