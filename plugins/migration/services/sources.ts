import path from 'node:path';
import {
  type AuditContext,
  type AuditWriter,
  type Db,
  diffForAudit,
  HttpError,
  type OutboundGuard,
  type SecretBox,
  type ServiceMap,
  type Tx,
  badRequest,
  conflict,
  isUniqueViolation,
  notFound,
} from '../../../kernel/index.ts';
import type { SourceColumns, SourceRow, SourceStore } from '../store/source-store.ts';

export const KEY_NAME = 'INTEGRATION_SECRETS_ENCRYPTION_KEY';

export interface ConnectionInput {
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string;
  ssl?: boolean;
}

export interface SourceInput {
  name?: string;
  kind?: 'pimcore';
  connection?: Partial<ConnectionInput>;
  classPath?: string;
  assetsPath?: string | null;
}

/** A source as every route answers it: the password only as `passwordSet`. */
export interface SourceView {
  id: string;
  name: string;
  kind: 'pimcore';
  connection: { host: string; port: number; database: string; user: string; ssl: boolean };
  passwordSet: boolean;
  classPath: string;
  assetsPath: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a connection needs, the password in clear (never leaves the process). */
export interface SourceSecrets {
  row: SourceRow;
  password: string | null;
}

const AUDIT = {
  allow: ['name', 'kind', 'host', 'port', 'database', 'user', 'ssl', 'classPath', 'assetsPath', 'password'],
  secrets: ['password'],
} as const;

const auditable = (r: SourceRow) => ({
  name: r.name,
  kind: r.kind,
  host: r.host,
  port: r.port,
  database: r.database_name,
  user: r.user_name,
  ssl: r.ssl,
  classPath: r.class_path,
  assetsPath: r.assets_path,
  // The sealed value differs whenever the password changed (a fresh IV each time); shown as `changed`.
  password: r.password_sealed,
});

export function toSourceView(r: SourceRow): SourceView {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    connection: { host: r.host, port: r.port, database: r.database_name, user: r.user_name, ssl: r.ssl },
    passwordSet: r.password_sealed !== null,
    classPath: r.class_path,
    assetsPath: r.assets_path,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** A folder on this server, named absolutely and without `..` (resolved it would name another). */
function checkFolder(value: string, field: string): string {
  const trimmed = value.length > 1 ? value.replace(/\/+$/, '') : value;
  if (!path.isAbsolute(trimmed) || path.normalize(trimmed) !== trimmed)
    throw badRequest(`${field} must be an absolute folder path without . or .. parts`, field);
  return trimmed;
}

/** Migration sources: validated, the password sealed, the host under the outbound policy, audited. */
export class SourceService {
  constructor(
    private readonly deps: {
      db: Db;
      audit: AuditWriter;
      secretBox: SecretBox;
      store: SourceStore;
      outboundGuard: Pick<OutboundGuard, 'refusal'>;
      outboundFetch: ServiceMap['outboundFetch'] | undefined;
    },
  ) {}

  async list(): Promise<SourceView[]> {
    return (await this.deps.store.list()).map(toSourceView);
  }

  async get(id: string): Promise<SourceView> {
    return toSourceView(await this.require(id));
  }

  /** The row with the password unsealed, for a connection. */
  async secrets(id: string): Promise<SourceSecrets> {
    const row = await this.require(id);
    return { row, password: row.password_sealed ? this.deps.secretBox.decrypt(row.password_sealed) : null };
  }

  async create(ctx: AuditContext, input: Required<Pick<SourceInput, 'name' | 'classPath'>> & SourceInput) {
    const conn = input.connection as ConnectionInput;
    await this.checkHost(conn.host);
    const columns: SourceColumns = {
      name: input.name.trim(),
      kind: 'pimcore',
      host: conn.host,
      port: conn.port,
      database_name: conn.database,
      user_name: conn.user,
      password_sealed: conn.password ? this.seal(conn.password) : null,
      ssl: conn.ssl ?? false,
      class_path: checkFolder(input.classPath, 'classPath'),
      assets_path: input.assetsPath ? checkFolder(input.assetsPath, 'assetsPath') : null,
    };
    const row = await this.write(async (trx) => {
      const created = await this.deps.store.insert(trx, columns);
      await this.deps.audit.record(
        ctx,
        {
          action: 'migration_source.create',
          targetType: 'migration_source',
          targetId: created.id,
          targetLabel: created.name,
          after: diffForAudit(null, auditable(created), AUDIT)?.after ?? null,
        },
        trx,
      );
      return created;
    });
    return toSourceView(row);
  }

  async update(ctx: AuditContext, id: string, input: SourceInput): Promise<SourceView> {
    const conn = input.connection ?? {};
    if (conn.host !== undefined) await this.checkHost(conn.host);
    const changes: Partial<SourceColumns> = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (conn.host !== undefined) changes.host = conn.host;
    if (conn.port !== undefined) changes.port = conn.port;
    if (conn.database !== undefined) changes.database_name = conn.database;
    if (conn.user !== undefined) changes.user_name = conn.user;
    if (conn.ssl !== undefined) changes.ssl = conn.ssl;
    if (input.classPath !== undefined) changes.class_path = checkFolder(input.classPath, 'classPath');
    if (input.assetsPath !== undefined)
      changes.assets_path = input.assetsPath ? checkFolder(input.assetsPath, 'assetsPath') : null;
    const row = await this.write(async (trx) => {
      const before = await this.deps.store.get(id, trx, true);
      if (!before) throw notFound('Migration source not found', 'MIGRATION_SOURCE_NOT_FOUND');
      // A password equal to the kept one is no change (sealing again would give another ciphertext).
      if (conn.password !== undefined) {
        const kept = before.password_sealed ? this.deps.secretBox.decrypt(before.password_sealed) : '';
        if (conn.password !== kept) changes.password_sealed = conn.password ? this.seal(conn.password) : null;
      }
      const diff = diffForAudit(auditable(before), auditable({ ...before, ...changes }), AUDIT);
      if (!diff) return before;
      const updated = await this.deps.store.update(trx, id, changes);
      await this.deps.audit.record(
        ctx,
        {
          action: 'migration_source.update',
          targetType: 'migration_source',
          targetId: id,
          targetLabel: updated.name,
          ...diff,
        },
        trx,
      );
      return updated;
    });
    return toSourceView(row);
  }

  async remove(ctx: AuditContext, id: string): Promise<void> {
    await this.write(async (trx) => {
      const before = await this.deps.store.get(id, trx, true);
      if (!before) throw notFound('Migration source not found', 'MIGRATION_SOURCE_NOT_FOUND');
      await this.deps.store.remove(trx, id);
      await this.deps.audit.record(
        ctx,
        {
          action: 'migration_source.delete',
          targetType: 'migration_source',
          targetId: id,
          targetLabel: before.name,
          before: diffForAudit(auditable(before), null, AUDIT)?.before ?? null,
        },
        trx,
      );
    });
  }

  /**
   * The outbound policy on the database host: the kernel's guard (the sandbox profile refuses every
   * host: 403 OUTBOUND_REFUSED), then the gateway's address policy on what it resolves to (link-local
   * and metadata addresses never, loopback in production only when OUTBOUND_ALLOW_HOSTS names it).
   * The database protocol is not HTTP, but the addresses it may reach are the same question. A name
   * that does not resolve now is left to the connection, which reports it. Connecting checks again.
   */
  async checkHost(host: string): Promise<void> {
    const guarded = this.deps.outboundGuard.refusal(host);
    if (guarded !== undefined)
      throw new HttpError(403, 'OUTBOUND_REFUSED', `connection.host refused: ${guarded}`, 'connection.host');
    const literal = host.includes(':') ? `[${host}]` : host;
    const refused = await this.deps.outboundFetch?.refusal(`http://${literal}/`);
    if (refused !== undefined && !/ does not resolve \(/.test(refused))
      throw badRequest(
        `connection.host is refused by the outbound policy: ${refused}`,
        'connection.host',
        'HOST_REFUSED',
      );
  }

  private seal(password: string): string {
    if (!this.deps.secretBox.hasKey(KEY_NAME))
      throw new HttpError(
        503,
        'INTEGRATION_SECRETS_ENCRYPTION_KEY_MISSING',
        `Storing a source password needs ${KEY_NAME} on the server; set it and try again`,
      );
    return this.deps.secretBox.encrypt(KEY_NAME, password);
  }

  private async require(id: string): Promise<SourceRow> {
    const row = await this.deps.store.get(id);
    if (!row) throw notFound('Migration source not found', 'MIGRATION_SOURCE_NOT_FOUND');
    return row;
  }

  private async write<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.deps.db.transaction(work);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('A migration source of this name exists', 'SOURCE_NAME_TAKEN', 'name');
      throw err;
    }
  }
}
