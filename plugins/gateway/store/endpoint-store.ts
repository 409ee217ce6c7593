import type { Db, Tx } from '../../../kernel/index.ts';
import type { Endpoint, RateLimit } from '../model.ts';
import type { AuthType } from '../services/auth-types.ts';

interface EndpointRow {
  id: string;
  name: string;
  base_url: string;
  auth_type: AuthType;
  auth_config: Record<string, string>;
  auth_secret: string | null;
  rate_limit: RateLimit | null;
  timeout_ms: number;
  default_headers: Record<string, string>;
  preset_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export type EndpointWrite = Omit<Endpoint, 'id' | 'createdAt' | 'updatedAt'>;

const toEndpoint = (r: EndpointRow): Endpoint => ({
  id: r.id,
  name: r.name,
  baseUrl: r.base_url,
  authType: r.auth_type,
  authConfig: r.auth_config ?? {},
  sealedSecret: r.auth_secret,
  rateLimit: r.rate_limit,
  timeoutMs: r.timeout_ms,
  defaultHeaders: r.default_headers ?? {},
  presetId: r.preset_id,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

const toRow = (e: Partial<EndpointWrite>) => {
  const row: Record<string, unknown> = {};
  if (e.name !== undefined) row.name = e.name;
  if (e.baseUrl !== undefined) row.base_url = e.baseUrl;
  if (e.authType !== undefined) row.auth_type = e.authType;
  if (e.authConfig !== undefined) row.auth_config = JSON.stringify(e.authConfig);
  if (e.sealedSecret !== undefined) row.auth_secret = e.sealedSecret;
  if (e.rateLimit !== undefined) row.rate_limit = e.rateLimit === null ? null : JSON.stringify(e.rateLimit);
  if (e.timeoutMs !== undefined) row.timeout_ms = e.timeoutMs;
  if (e.defaultHeaders !== undefined) row.default_headers = JSON.stringify(e.defaultHeaders);
  if (e.presetId !== undefined) row.preset_id = e.presetId;
  return row;
};

/** The only place with SQL for `gateway_endpoints`. */
export class EndpointStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<Endpoint[]> {
    return (await this.db<EndpointRow>('gateway_endpoints').orderBy('name')).map(toEndpoint);
  }

  async findById(id: string, trx?: Tx): Promise<Endpoint | undefined> {
    const row = await (trx ?? this.db)<EndpointRow>('gateway_endpoints').where({ id }).first();
    return row && toEndpoint(row);
  }

  async findByName(name: string, trx?: Tx): Promise<Endpoint | undefined> {
    const row = await (trx ?? this.db)<EndpointRow>('gateway_endpoints').where({ name }).first();
    return row && toEndpoint(row);
  }

  async insert(e: EndpointWrite, trx?: Tx): Promise<Endpoint> {
    const [row] = await (trx ?? this.db)('gateway_endpoints').insert(toRow(e)).returning('*');
    return toEndpoint(row as EndpointRow);
  }

  async update(id: string, patch: Partial<EndpointWrite>, trx?: Tx): Promise<Endpoint | undefined> {
    const [row] = await (trx ?? this.db)('gateway_endpoints')
      .where({ id })
      .update({ ...toRow(patch), updated_at: this.db.fn.now() })
      .returning('*');
    return row && toEndpoint(row as EndpointRow);
  }

  /** Deletes the endpoint and (cascade) its routes; false when it did not exist. */
  async delete(id: string, trx?: Tx): Promise<boolean> {
    return (await (trx ?? this.db)('gateway_endpoints').where({ id }).delete()) > 0;
  }
}
