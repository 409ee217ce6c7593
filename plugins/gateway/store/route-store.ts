import type { Db, Tx } from '../../../kernel/index.ts';
import type { HttpMethod, Route } from '../model.ts';

interface RouteRow {
  id: string;
  endpoint_id: string;
  name: string | null;
  method: HttpMethod;
  path: string;
  description: string | null;
  response_schema: unknown;
  sample: unknown;
  schema_source: Route['schemaSource'];
  schema_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type RouteWrite = Pick<Route, 'endpointId' | 'name' | 'method' | 'path' | 'description'> &
  Partial<Pick<Route, 'responseSchema' | 'sample' | 'schemaSource'>>;

const toRoute = (r: RouteRow): Route => ({
  id: r.id,
  endpointId: r.endpoint_id,
  name: r.name,
  method: r.method,
  path: r.path,
  description: r.description,
  responseSchema: r.response_schema,
  sample: r.sample,
  schemaSource: r.schema_source,
  schemaUpdatedAt: r.schema_updated_at ? r.schema_updated_at.toISOString() : null,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** The only place with SQL for `gateway_routes`. */
export class RouteStore {
  constructor(private readonly db: Db) {}

  async listByEndpoint(endpointId: string, trx?: Tx): Promise<Route[]> {
    return (
      await (trx ?? this.db)<RouteRow>('gateway_routes').where({ endpoint_id: endpointId }).orderBy(['path', 'method'])
    ).map(toRoute);
  }

  async findById(id: string, trx?: Tx): Promise<Route | undefined> {
    const row = await (trx ?? this.db)<RouteRow>('gateway_routes').where({ id }).first();
    return row && toRoute(row);
  }

  async insert(r: RouteWrite, trx?: Tx): Promise<Route> {
    const [row] = await (trx ?? this.db)('gateway_routes')
      .insert({
        endpoint_id: r.endpointId,
        name: r.name,
        method: r.method,
        path: r.path,
        description: r.description,
        response_schema: json(r.responseSchema),
        sample: json(r.sample),
        schema_source: r.schemaSource ?? null,
        schema_updated_at: r.schemaSource ? this.db.fn.now() : null,
      })
      .returning('*');
    return toRoute(row as RouteRow);
  }

  async update(
    id: string,
    patch: Partial<Pick<Route, 'name' | 'method' | 'path' | 'description'>>,
    trx?: Tx,
  ): Promise<Route | undefined> {
    const [row] = await (trx ?? this.db)('gateway_routes')
      .where({ id })
      .update({ ...patch, updated_at: this.db.fn.now() })
      .returning('*');
    return row && toRoute(row as RouteRow);
  }

  async saveSchema(
    id: string,
    schema: unknown,
    sample: unknown,
    source: 'inferred' | 'openapi',
  ): Promise<Route | undefined> {
    const [row] = await this.db('gateway_routes')
      .where({ id })
      .update({
        response_schema: json(schema),
        sample: json(sample),
        schema_source: source,
        schema_updated_at: this.db.fn.now(),
        updated_at: this.db.fn.now(),
      })
      .returning('*');
    return row && toRoute(row as RouteRow);
  }

  async delete(id: string, trx?: Tx): Promise<boolean> {
    return (await (trx ?? this.db)('gateway_routes').where({ id }).delete()) > 0;
  }
}
