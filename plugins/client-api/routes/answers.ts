import { Type } from '@sinclair/typebox';
import { nonJsonAnswer } from '../../../kernel/index.ts';

/** The answer schemas of the /client/v1 routes: what a client is shown, and nothing else. */
const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** An object as a client sees it (`clientObject`): its identity and the class's own attributes. */
export const ClientObjectView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  className: Type.String(),
  locale: Type.String(),
  key: NullableString,
  translationGroupId: Type.String(),
  published: Type.Boolean(),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ClientObjectPage = Type.Object({ objects: Type.Array(ClientObjectView), hasMore: Type.Boolean() });

/** The answer to a client's write (`writtenObject`): `key` only when sent or on create, the attributes sent. */
export const WrittenObjectView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  className: Type.String(),
  locale: Type.String(),
  key: Type.Optional(NullableString),
  translationGroupId: Type.String(),
  published: Type.Boolean(),
  attributes: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** `GET /client/v1/me`: who the caller is to the gateway, never a secret. */
export const ClientMeView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  authMode: Type.String(),
  status: Type.String(),
  scopes: Type.Array(Type.String()),
  limits: Type.Object({ requestsPerMinute: Type.Integer() }),
  allowedAddresses: Type.Array(Type.String()),
  expiresAt: NullableString,
  rateLimitStore: Type.Object({
    store: Type.Union([Type.Literal('memory'), Type.Literal('database'), Type.Literal('redis')]),
    reachable: Type.Boolean(),
  }),
});

/** What an automation answered: `ok` below 400, its `outcome` key when it gave one, and its answer. */
export const AutomationAnswer = Type.Object({
  ok: Type.Boolean(),
  outcome: Type.Optional(Type.String()),
  response: Type.Unknown(),
});

/** A passthrough call: the upstream's answer as it came (status, body and the passed headers). */
export const RelayedAnswer = nonJsonAnswer('*/*', "The upstream's answer, streamed as it came");

/**
 * The spec's 404 on /client/v1: the text `Not found`, the same for whatever was not found or out of
 * scope, so a client cannot tell which.
 */
export const ClientNotFoundAnswer = nonJsonAnswer('text/plain', 'Not found (or out of the client scope)');
