import type { Clock, Db, Tx } from '../../../kernel/index.ts';

export interface SourceRow {
  id: string;
  name: string;
  kind: 'pimcore';
  host: string;
  port: number;
  database_name: string;
  user_name: string;
  password_sealed: string | null;
  ssl: boolean;
  class_path: string;
  assets_path: string | null;
  created_at: Date;
  updated_at: Date;
}

export type SourceColumns = Omit<SourceRow, 'id' | 'created_at' | 'updated_at'>;

/** The only place that writes `migration_sources`. */
export class SourceStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  list(): Promise<SourceRow[]> {
    return this.db('migration_sources').orderBy('name').select('*');
  }

  async get(id: string, trx?: Tx, lock = false): Promise<SourceRow | undefined> {
    const q = (trx ?? this.db)('migration_sources').where({ id }).first('*');
    return lock ? q.forUpdate() : q;
  }

  async insert(trx: Tx, columns: SourceColumns): Promise<SourceRow> {
    const now = this.clock.now();
    const [row] = await trx('migration_sources')
      .insert({ ...columns, created_at: now, updated_at: now })
      .returning('*');
    return row;
  }

  async update(trx: Tx, id: string, columns: Partial<SourceColumns>): Promise<SourceRow> {
    const [row] = await trx('migration_sources')
      .where({ id })
      .update({ ...columns, updated_at: this.clock.now() })
      .returning('*');
    return row;
  }

  async remove(trx: Tx, id: string): Promise<void> {
    await trx('migration_sources').where({ id }).delete();
  }
}
