import { createHash } from 'node:crypto';
import type { Db } from '../../../kernel/index.ts';

/** The slice of a pooled `pg.Client` used here. */
interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}
interface PoolClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/**
 * Statements of the public read path, sent on a connection of the process's pool as named prepared
 * statements: each connection parses and plans a statement text once (PostgreSQL keeps a generic
 * plan after a few executions) and later requests send only its name and values. The texts name the
 * class's partition directly, so a plan never has to prune partitions, and carry field names as
 * literals (checked identifiers), so a generic plan still matches the field indexes; only values are
 * parameters.
 *
 * Texts a client can vary without bound (filter combinations) must not grow every connection's
 * statement list for ever: the first `maxNames` distinct texts get a name, later ones run unnamed
 * (planned each time, as before). Statements announce themselves on knex's `query` event like every
 * other statement of the process (query logging, the plan tests).
 */
export class PreparedReads {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly maxNames = 500,
  ) {}

  async rows<T>(text: string, values: unknown[]): Promise<T[]> {
    const client = this.db.client as unknown as PoolClient;
    const connection = await client.acquireConnection();
    try {
      if (this.db.listenerCount('query') > 0) this.db.emit('query', { sql: text, bindings: values, method: 'raw' });
      const result = await connection.query({ name: this.nameOf(text), text, values });
      return result.rows as T[];
    } finally {
      // Handed back at once, not awaited: the answer does not wait for the pool's bookkeeping, and the
      // next waiting request gets the connection in the same turn.
      client.releaseConnection(connection).catch(() => undefined);
    }
  }

  private nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.maxNames) {
      name = `data_pub_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      this.names.set(text, name);
    }
    return name;
  }
}
