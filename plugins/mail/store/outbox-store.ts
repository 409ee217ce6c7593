import { type Db, type Tx, unicodeLowerSql } from '../../../kernel/index.ts';

export type MailStatus = 'queued' | 'retrying' | 'sent' | 'failed';
export const FINISHED: readonly MailStatus[] = ['sent', 'failed'];

export interface OutboxRow {
  id: string;
  seq: string;
  website_id: string | null;
  kind: string;
  template_key: string | null;
  to_addresses: string[];
  cc_addresses: string[];
  recipients: string[];
  from_address: string;
  reply_to: string | null;
  subject: string;
  html: string | null;
  text: string;
  secrets_sealed: string | null;
  status: MailStatus;
  /** The worker holding a claim on the row (until `next_attempt_at`), or null. */
  claimed_by: string | null;
  attempts: number;
  next_attempt_at: Date;
  provider: string | null;
  provider_answer: string | null;
  last_error: string | null;
  message_id: string;
  resent_from: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export type OutboxInsert = Pick<
  OutboxRow,
  | 'website_id'
  | 'kind'
  | 'template_key'
  | 'to_addresses'
  | 'cc_addresses'
  | 'from_address'
  | 'reply_to'
  | 'subject'
  | 'html'
  | 'text'
  | 'secrets_sealed'
  | 'message_id'
  | 'resent_from'
> & { id: string };

export interface OutboxOutcome {
  status: MailStatus;
  attempts: number;
  nextAttemptAt: Date;
  provider: string | null;
  providerAnswer: string | null;
  lastError: string | null;
  sentAt: Date | null;
  /** Final outcomes drop the sealed secrets: nothing will need them again. */
  dropSecrets: boolean;
}

export interface LogFilter {
  status?: MailStatus;
  kind?: string;
  recipient?: string;
  websiteId?: string;
  q?: string;
  since?: Date;
  until?: Date;
}

/** Columns of the log list: everything but the bodies and the sealed secrets. */
const LIST_COLUMNS = [
  'id',
  'website_id',
  'kind',
  'template_key',
  'to_addresses',
  'cc_addresses',
  'from_address',
  'reply_to',
  'subject',
  'status',
  'attempts',
  'next_attempt_at',
  'provider',
  'provider_answer',
  'last_error',
  'message_id',
  'resent_from',
  'created_at',
  'sent_at',
] as const;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `mail_outbox`: the durable outbox and the mail log in one table. A row is inserted in the
 * transaction of the change that caused the mail; the worker claims a batch of due rows in one
 * statement (`FOR UPDATE SKIP LOCKED`, committed at once), sends them with no transaction open and
 * records the outcomes in batches. A claim lasts until the row's `next_attempt_at`, so two
 * processes never send one row, and a row whose process died mid-send is due again when its claim
 * runs out.
 */
export class OutboxStore {
  /** Lower-casing by Unicode rules in the database (the text search of a data subject). */
  private fold: Promise<(expression: string) => string> | undefined;

  constructor(private readonly db: Db) {}

  /** A queued row, due at `dueAt` (default: now). */
  async insert(row: OutboxInsert, now: Date, trx?: Tx, dueAt = now): Promise<void> {
    await (trx ?? this.db)('mail_outbox').insert({
      ...row,
      recipients: [...row.to_addresses, ...row.cc_addresses].map((a) => a.toLowerCase()),
      status: 'queued',
      attempts: 0,
      next_attempt_at: dueAt,
      created_at: now,
    });
  }

  /**
   * Claims up to `limit` due rows for `owner` until `until`, oldest first, in one statement (its own
   * transaction): the rows are due again at `until` unless `finishMany` records them before. Rows
   * another claim is taking at the same moment are skipped (`FOR UPDATE SKIP LOCKED`), so two
   * workers never claim one row.
   */
  async claimDue(now: Date, owner: string, until: Date, limit: number): Promise<OutboxRow[]> {
    const { rows } = await this.db.raw<{ rows: OutboxRow[] }>(
      `update mail_outbox o set claimed_by = ?, next_attempt_at = ?
         from (select id from mail_outbox
                where status in ('queued', 'retrying') and next_attempt_at <= ?
                order by next_attempt_at
                limit ?
                for update skip locked) due
        where o.id = due.id
        returning o.*`,
      [owner, until, now, limit],
    );
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
  }

  /**
   * Records the outcomes of rows `owner` claimed, in one statement; answers the ids recorded. A row
   * whose claim `owner` lost (it ran out and another worker claimed the row) is left to that worker.
   */
  async finishMany(owner: string, outcomes: Array<{ id: string; outcome: OutboxOutcome }>): Promise<string[]> {
    if (!outcomes.length) return [];
    const values = outcomes.map(({ id, outcome: o }) => ({
      id,
      status: o.status,
      attempts: o.attempts,
      next_attempt_at: o.nextAttemptAt.toISOString(),
      provider: o.provider,
      provider_answer: o.providerAnswer,
      last_error: o.lastError,
      sent_at: o.sentAt?.toISOString() ?? null,
      drop_secrets: o.dropSecrets,
    }));
    const { rows } = await this.db.raw<{ rows: Array<{ id: string }> }>(
      `update mail_outbox o
          set status = v.status, attempts = v.attempts, next_attempt_at = v.next_attempt_at,
              provider = v.provider, provider_answer = v.provider_answer, last_error = v.last_error,
              sent_at = v.sent_at, claimed_by = null,
              secrets_sealed = case when v.drop_secrets then null else o.secrets_sealed end
         from jsonb_to_recordset(?::jsonb) as v(id uuid, status text, attempts int, next_attempt_at timestamptz,
              provider text, provider_answer text, last_error text, sent_at timestamptz, drop_secrets boolean)
        where o.id = v.id and o.claimed_by = ?
        returning o.id`,
      [JSON.stringify(values), owner],
    );
    return rows.map((r) => r.id);
  }

  /** Gives claimed rows back unsent: due at `now` again. */
  async release(owner: string, ids: string[], now: Date): Promise<void> {
    if (!ids.length) return;
    await this.db('mail_outbox')
      .whereIn('id', ids)
      .where({ claimed_by: owner })
      .update({ claimed_by: null, next_attempt_at: now });
  }

  /** One row, locked in `trx` (waits for a claim being taken); undefined while a worker's claim runs. */
  async lock(id: string, now: Date, trx: Tx): Promise<OutboxRow | undefined> {
    const row = await trx<OutboxRow>('mail_outbox').where({ id }).forUpdate().first();
    if (row?.claimed_by && row.next_attempt_at > now) return undefined;
    return row;
  }

  async finish(id: string, outcome: OutboxOutcome, trx: Tx): Promise<void> {
    await trx('mail_outbox')
      .where({ id })
      .update({
        status: outcome.status,
        attempts: outcome.attempts,
        next_attempt_at: outcome.nextAttemptAt,
        provider: outcome.provider,
        provider_answer: outcome.providerAnswer,
        last_error: outcome.lastError,
        sent_at: outcome.sentAt,
        claimed_by: null,
        ...(outcome.dropSecrets ? { secrets_sealed: null } : {}),
      });
  }

  byId(id: string): Promise<OutboxRow | undefined> {
    return this.db<OutboxRow>('mail_outbox').where({ id }).first();
  }

  async list(filter: LogFilter, limit: number, offset: number): Promise<{ rows: OutboxRow[]; total: number }> {
    const where = (q: ReturnType<Db>) => {
      if (filter.status) void q.where('status', filter.status);
      if (filter.kind) void q.where('kind', filter.kind);
      if (filter.websiteId) void q.where('website_id', filter.websiteId);
      if (filter.recipient) void q.whereRaw('recipients @> array[?]::text[]', [filter.recipient.toLowerCase()]);
      if (filter.q) void q.whereRaw("subject ilike ? escape '\\'", [`%${escapeLike(filter.q)}%`]);
      if (filter.since) void q.where('created_at', '>=', filter.since);
      if (filter.until) void q.where('created_at', '<', filter.until);
      return q;
    };
    const [rows, [{ total }]] = await Promise.all([
      where(this.db('mail_outbox'))
        .select([...LIST_COLUMNS])
        .orderBy('seq', 'desc')
        .limit(limit)
        .offset(offset) as unknown as Promise<OutboxRow[]>,
      where(this.db('mail_outbox')).count<{ total: string }[]>({ total: '*' }),
    ]);
    return { rows, total: Number(total) };
  }

  /** Deletes finished rows among `ids`; answers the ids deleted. */
  async deleteFinished(ids: string[], trx: Tx): Promise<string[]> {
    const rows = await trx('mail_outbox')
      .whereIn('id', ids)
      .whereIn('status', FINISHED as MailStatus[])
      .delete()
      .returning('id');
    return rows.map((r: { id: string }) => r.id);
  }

  /** Deletes up to `batch` finished rows created before `cutoff`; answers how many went. */
  async purgeBatch(cutoff: Date, batch: number): Promise<number> {
    const { rowCount } = await this.db.raw(
      `delete from mail_outbox where id in (
         select id from mail_outbox where created_at < ? and status in ('sent', 'failed') limit ?)`,
      [cutoff, batch],
    );
    return rowCount ?? 0;
  }

  /** Rows whose to or cc is `address` (whole value, any case), optionally also a word in subject or body. */
  async findForPerson(
    address: string,
    lookInsideText: boolean,
    limit: number,
    trx?: Tx,
  ): Promise<{ rows: Array<Pick<OutboxRow, 'id' | 'created_at' | 'subject' | 'recipients'>>; total: number }> {
    const q = this.personQuery(address, lookInsideText, await this.folding(), trx);
    const [rows, [{ total }]] = await Promise.all([
      q.clone().select('id', 'created_at', 'subject', 'recipients').orderBy('seq', 'desc').limit(limit),
      q.clone().count<{ total: string }[]>({ total: '*' }),
    ]);
    return { rows, total: Number(total) };
  }

  /** The whole rows of a person (the export), newest first, sealed secrets left out. */
  async recordsForPerson(address: string, lookInsideText: boolean, limit: number, trx?: Tx): Promise<OutboxRow[]> {
    const rows: OutboxRow[] = await this.personQuery(address, lookInsideText, await this.folding(), trx)
      .orderBy('seq', 'desc')
      .limit(limit);
    return rows.map((r) => ({ ...r, secrets_sealed: null }));
  }

  /** Deletes a person's rows (or counts them when `dryRun`); answers how many. */
  async eraseForPerson(address: string, lookInsideText: boolean, dryRun: boolean, trx?: Tx): Promise<number> {
    const q = this.personQuery(address, lookInsideText, await this.folding(), trx);
    if (dryRun) return Number((await q.count<{ total: string }[]>({ total: '*' }))[0].total);
    return q.delete();
  }

  private folding() {
    this.fold ??= unicodeLowerSql(this.db);
    return this.fold;
  }

  /**
   * Rows whose to or cc is `address` (whole value, any case), optionally also a word in subject or body.
   * Recipients are stored lower-cased (JavaScript's Unicode rules, as `address` is here); subject and
   * text are lower-cased in the database by Unicode rules (a `C`-locale database's `~*` folds ASCII
   * only), and the address is matched as written: every regular-expression character is escaped.
   */
  private personQuery(address: string, lookInsideText: boolean, fold: (expression: string) => string, trx?: Tx) {
    const lower = address.toLowerCase();
    return (trx ?? this.db)('mail_outbox').where((w) => {
      void w.whereRaw('recipients @> array[?]::text[]', [lower]);
      if (lookInsideText) {
        // A word: the whole value between non-word characters (not part of a longer address).
        const pattern = `(^|[^[:alnum:]._%+-])${lower.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^[:alnum:]._%+-])`;
        void w
          .orWhereRaw(`${fold('subject')} ~ ${fold('?::text')}`, [pattern])
          .orWhereRaw(`${fold('text')} ~ ${fold('?::text')}`, [pattern]);
      }
    });
  }
}
