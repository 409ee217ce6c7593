import type { Clock, Db, Tx } from '../../../kernel/index.ts';

export type GeneratedKind = 'text' | 'structure' | 'image' | 'translation';

export interface GeneratedEntry {
  id: string;
  kind: GeneratedKind;
  prompt: string;
  result: unknown;
  model: string;
  createdBy: string | null;
  createdAt: string;
}

const toEntry = (r: Record<string, unknown>): GeneratedEntry => ({
  id: r.id as string,
  kind: r.kind as GeneratedKind,
  prompt: r.prompt as string,
  result: r.result,
  model: r.model as string,
  createdBy: (r.created_by as string | null) ?? null,
  createdAt: (r.created_at as Date).toISOString(),
});

/** The only place that writes `ai_generated` (past results). */
export class GeneratedStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async add(e: { kind: GeneratedKind; prompt: string; result: unknown; model: string; createdBy: string | null }) {
    const [row] = await this.db('ai_generated')
      .insert({
        kind: e.kind,
        prompt: e.prompt,
        // jsonb: a plain string is stored as a JSON string.
        result: JSON.stringify(e.result),
        model: e.model,
        created_by: e.createdBy,
        created_at: this.clock.now(),
      })
      .returning('*');
    return toEntry(row);
  }

  async list(f: { kind?: GeneratedKind; limit: number; offset: number }) {
    const base = () => {
      const q = this.db('ai_generated');
      if (f.kind) q.where({ kind: f.kind });
      return q;
    };
    const [rows, [{ count }]] = await Promise.all([
      base()
        .select('*')
        .orderBy([{ column: 'created_at', order: 'desc' }, 'id'])
        .limit(f.limit)
        .offset(f.offset),
      base().count<{ count: string }[]>('* as count'),
    ]);
    return { items: rows.map(toEntry), total: Number(count) };
  }

  /**
   * A person's entries (data-subject requests): written by the account `userId`, and with `mention`
   * also those whose prompt contains it (case-insensitive). Newest first, at most `limit` rows, and
   * the count of all.
   */
  async findForPerson(who: PersonMatch, limit: number, trx?: Tx) {
    if (!who.userId && !who.mention) return { rows: [] as GeneratedEntry[], total: 0, ids: [] as string[] };
    const base = () => personQuery((trx ?? this.db)('ai_generated'), who);
    const [rows, ids] = await Promise.all([
      base()
        .select('*')
        .orderBy([{ column: 'created_at', order: 'desc' }, 'id'])
        .limit(limit),
      base().pluck('id'),
    ]);
    return { rows: rows.map(toEntry), total: ids.length, ids: ids as string[] };
  }

  /** Deletes a person's entries (`dryRun`: only counts them). */
  async eraseForPerson(who: PersonMatch, dryRun: boolean): Promise<number> {
    if (!who.userId && !who.mention) return 0;
    if (dryRun) {
      const [{ count }] = await personQuery(this.db('ai_generated'), who).count<{ count: string }[]>('* as count');
      return Number(count);
    }
    return personQuery(this.db('ai_generated'), who).delete();
  }

  /** Entries older than `days`; answers how many went. */
  async purgeOlderThan(days: number): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - days * 86_400_000);
    return this.db('ai_generated').where('created_at', '<', cutoff).delete();
  }
}

/** Whose entries a data-subject request means: the account's own, and prompts naming the identifier. */
export interface PersonMatch {
  userId: string | null;
  mention: string | null;
}

function personQuery<Q extends ReturnType<Db>>(q: Q, who: PersonMatch): Q {
  return q.where((w) => {
    if (who.userId) void w.orWhere('created_by', who.userId);
    if (who.mention)
      void w.orWhereRaw("prompt ilike ? escape '\\'", [`%${who.mention.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
  }) as Q;
}
