import { badRequest, conflict, inTransaction, notFound, type Clock, type Db } from '../../../kernel/index.ts';
import {
  toClientDto,
  toKeyDto,
  type AuthMode,
  type ClientDto,
  type ClientLimits,
  type ClientStatus,
  type JwtRegistration,
  type KeyDto,
} from '../model.ts';
import * as store from '../store/client-store.ts';
import { assertAddresses } from './addresses.ts';
import type { ClientAuthenticator } from './authenticator.ts';
import { newClientKey } from './keys.ts';
import { assertClassSpelling, assertScopes } from './scopes.ts';

export interface CreateClientInput {
  name: string;
  authMode: AuthMode;
  scopes?: string[];
  limits?: ClientLimits;
  allowedAddresses?: string[];
  expiresAt?: string | null;
  jwt?: JwtRegistration | null;
}

export interface PatchClientInput {
  name?: string;
  authMode?: AuthMode;
  status?: ClientStatus;
  scopes?: string[];
  limits?: ClientLimits;
  allowedAddresses?: string[];
  expiresAt?: string | null;
  jwt?: JwtRegistration | null;
}

/**
 * Administration of API clients and their keys (`gateway:manage`; not audited, per the spec). Every
 * change clears the authenticator's cache in this process at once and in every other process through
 * the kernel's cache notices (within a second), so a suspension or revocation applies to the next request.
 */
export class ClientAdmin {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      authenticator: ClientAuthenticator;
      production: boolean;
      /** The data plugin's class names. */
      classNames: () => Promise<string[]>;
      /** Tells every process (this one included) that clients or keys changed. */
      announceChange: () => Promise<void>;
    },
  ) {}

  async list(limit: number, offset: number): Promise<ClientDto[]> {
    const rows = await store.listClients(this.deps.db, limit, offset);
    const keys = await store.keysOf(
      this.deps.db,
      rows.map((r) => r.id),
    );
    return rows.map((r) =>
      toClientDto(
        r,
        keys.filter((k) => k.client_id === r.id),
      ),
    );
  }

  async get(id: string): Promise<ClientDto> {
    const row = await store.findClient(this.deps.db, id);
    if (!row) throw notFound('Client not found', 'CLIENT_NOT_FOUND');
    return toClientDto(row, await store.keysOf(this.deps.db, [id]));
  }

  /** A key client gets its first key in the reply (`key`, shown once). */
  async create(input: CreateClientInput): Promise<ClientDto & { key?: string }> {
    const jwt = this.checkKind(input.authMode, input.scopes ?? [], input.jwt ?? null);
    await assertClassSpelling(input.scopes ?? [], this.deps.classNames);
    assertAddresses(input.allowedAddresses ?? []);
    const created = await inTransaction(this.deps.db, undefined, async (trx) => {
      const row = await store.insertClient(trx, {
        name: input.name,
        auth_mode: input.authMode,
        status: 'active',
        scopes: input.scopes ?? [],
        limits: input.limits ?? {},
        allowed_addresses: input.allowedAddresses ?? [],
        expires_at: expiry(input.expiresAt),
        jwt,
      });
      if (row.auth_mode !== 'key') return toClientDto(row, []);
      const fresh = newClientKey();
      const key = await store.insertKey(trx, row.id, fresh.prefix, fresh.hash);
      return { ...toClientDto(row, [key]), key: fresh.key };
    });
    // A new jwt client must be found for its issuer at once.
    this.deps.authenticator.invalidate();
    await this.deps.announceChange();
    return created;
  }

  async patch(id: string, input: PatchClientInput): Promise<ClientDto> {
    const dto = await inTransaction(this.deps.db, undefined, async (trx) => {
      const before = await store.findClient(trx, id, true);
      if (!before) throw notFound('Client not found', 'CLIENT_NOT_FOUND');
      const authMode = input.authMode ?? before.auth_mode;
      const scopes = input.scopes ?? before.scopes;
      // Switching to `key` drops the provider registration; switching to `jwt` needs one.
      const jwtInput = input.jwt !== undefined ? input.jwt : authMode === 'jwt' ? before.jwt : null;
      const jwt = this.checkKind(authMode, scopes, jwtInput);
      await assertClassSpelling(scopes, this.deps.classNames, before.scopes);
      if (input.allowedAddresses) assertAddresses(input.allowedAddresses);
      const fields: Partial<store.ClientFields> = { auth_mode: authMode, scopes, jwt };
      if (input.name !== undefined) fields.name = input.name;
      if (input.status !== undefined) fields.status = input.status;
      if (input.limits !== undefined) fields.limits = input.limits;
      if (input.allowedAddresses !== undefined) fields.allowed_addresses = input.allowedAddresses;
      if (input.expiresAt !== undefined) fields.expires_at = expiry(input.expiresAt);
      const row = (await store.updateClient(trx, id, fields, this.deps.clock.now()))!;
      // Keys of a client that now signs in with tokens are revoked, so switching back cannot revive them.
      if (before.auth_mode === 'key' && authMode === 'jwt') await store.revokeAllKeys(trx, id, this.deps.clock.now());
      return toClientDto(row, await store.keysOf(trx, [id]));
    });
    this.deps.authenticator.invalidate();
    await this.deps.announceChange();
    return dto;
  }

  async remove(id: string): Promise<void> {
    if (!(await store.deleteClient(this.deps.db, id))) throw notFound('Client not found', 'CLIENT_NOT_FOUND');
    this.deps.authenticator.invalidate();
    await this.deps.announceChange();
  }

  async addKey(clientId: string): Promise<KeyDto & { key: string }> {
    return inTransaction(this.deps.db, undefined, async (trx) => {
      const client = await store.findClient(trx, clientId, true);
      if (!client) throw notFound('Client not found', 'CLIENT_NOT_FOUND');
      if (client.auth_mode !== 'key')
        throw conflict('A jwt client authenticates with tokens, not keys', 'CLIENT_NOT_KEY_MODE');
      if ((await store.keysOf(trx, [clientId])).filter((k) => !k.revoked_at).length >= 20)
        throw conflict('A client has at most 20 live keys; revoke one first', 'TOO_MANY_KEYS');
      const fresh = newClientKey();
      return { ...toKeyDto(await store.insertKey(trx, clientId, fresh.prefix, fresh.hash)), key: fresh.key };
    });
  }

  async revokeKey(clientId: string, keyId: string): Promise<KeyDto> {
    const row = await store.revokeKey(this.deps.db, clientId, keyId, this.deps.clock.now());
    if (!row) throw notFound('Key not found', 'KEY_NOT_FOUND');
    this.deps.authenticator.invalidate();
    await this.deps.announceChange();
    return toKeyDto(row);
  }

  private checkKind(authMode: AuthMode, scopes: string[], jwt: JwtRegistration | null): JwtRegistration | null {
    assertScopes(scopes, authMode);
    if (authMode === 'key') {
      if (jwt) throw badRequest('jwt is only for clients with authMode jwt', 'jwt');
      return null;
    }
    if (!jwt)
      throw badRequest('A jwt client needs its identity provider registration (jwt.issuer, jwt.audience)', 'jwt');
    let url: URL;
    try {
      url = new URL(jwt.issuer);
    } catch {
      throw badRequest('jwt.issuer must be a URL', 'jwt.issuer');
    }
    if (url.protocol !== 'https:' && (this.deps.production || url.protocol !== 'http:'))
      throw badRequest('jwt.issuer must be an https URL', 'jwt.issuer');
    return jwt;
  }
}

function expiry(value: string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw badRequest('expiresAt must be a date-time', 'expiresAt');
  return date;
}
