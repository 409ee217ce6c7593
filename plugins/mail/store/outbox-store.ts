import { type Db, type Tx, unicodeLowerSql } from '../../../kernel/index.ts';

export type MailStatus = 'queued' | 'retrying' | 'sent' | 'failed';
export const FINISHED: readonly MailStatus[] = ['sent', 'failed'];
/** `claimed_by` of a pending row from before the job queue (migration 0003), until its job is enqueued. */
export const UNQUEUED = 'before-job-queue';

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
  attempts: number;
  next_attempt_at: Date;
  provider: string | null;
  provider_answer: string | null;
  /** Sent: true when a mail server took it, false when it was only written to the service log. */
  delivered: boolean | null;
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
  delivered: boolean | null;
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
  'delivered',
  'last_error',
  'message_id',
  'resent_from',
  'created_at',
  'sent_at',
] as const;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A mail still to be sent (its job waits in the `mail.outbox` queue). */
export const PENDING: readonly MailStatus[] = ['queued', 'retrying'];

/**
 * `mail_outbox`: the mail log, one row per mail. A row is inserted in the transaction of the change
 * that caused the mail, together with its job in the kernel's `mail.outbox` queue (which claims, times
 * out and retries); the row records what became of the mail. Outcomes are recorded only while the
 * row is still pending, so a try that runs again after a crash never rewrites a finished row.
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

  /** The rows of `ids` that exist, in one statement. */
  byIds(ids: readonly string[]): Promise<OutboxRow[]> {
    return this.db<OutboxRow>('mail_outbox').whereIn('id', ids);
  }

  /**
   * Records the outcomes of several sends in one statement; answers the ids recorded (a row no longer
   * pending, or gone, is left as it is).
   */
  async finishMany(outcomes: ReadonlyArray<{ id: string; outcome: OutboxOutcome }>): Promise<string[]> {
    if (!outcomes.length) return [];
    const values = outcomes.map(({ id, outcome: o }) => ({
      id,
      status: o.status,
      attempts: o.attempts,
      next_attempt_at: o.nextAttemptAt.toISOString(),
      provider: o.provider,
      provider_answer: o.providerAnswer,
      delivered: o.delivered,
      last_error: o.lastError,
      sent_at: o.sentAt?.toISOString() ?? null,
      drop_secrets: o.dropSecrets,
    }));
    const { rows } = await this.db.raw<{ rows: Array<{ id: string }> }>(
      `update mail_outbox o
          set status = v.status, attempts = v.attempts, next_attempt_at = v.next_attempt_at,
              provider = coalesce(v.provider, o.provider), provider_answer = v.provider_answer, delivered = v.delivered,
              last_error = v.last_error, sent_at = v.sent_at,
              secrets_sealed = case when v.drop_secrets then null else o.secrets_sealed end
         from jsonb_to_recordset(?::jsonb) as v(id uuid, status text, attempts int, next_attempt_at timestamptz,
              provider text, provider_answer text, delivered boolean, last_error text, sent_at timestamptz, drop_secrets boolean)
        where o.id = v.id and o.status in ('queued', 'retrying')
        returning o.id`,
      [JSON.stringify(values)],
    );
    return rows.map((r) => r.id);
  }

  /** One row, locked in `trx`. */
  lock(id: string, trx: Tx): Promise<OutboxRow | undefined> {
    return trx<OutboxRow>('mail_outbox').where({ id }).forUpdate().first();
  }

  /** Records one outcome in `trx` while the row is pending (a provider of null keeps the one recorded). */
  async finish(id: string, outcome: OutboxOutcome, trx: Tx): Promise<void> {
    await trx('mail_outbox')
      .where({ id })
      .whereIn('status', PENDING as MailStatus[])
      .update({
        status: outcome.status,
        attempts: outcome.attempts,
        next_attempt_at: outcome.nextAttemptAt,
        provider: trx.raw('coalesce(?, provider)', [outcome.provider]),
        provider_answer: outcome.providerAnswer,
        delivered: outcome.delivered,
        last_error: outcome.lastError,
        sent_at: outcome.sentAt,
        ...(outcome.dropSecrets ? { secrets_sealed: null } : {}),
      });
  }

  /**
   * Pending rows queued before the mail outbox was a job queue (marked by migration 0003), unmarked
   * in `trx`: their caller enqueues their jobs in the same transaction. Two processes starting at once
   * take each row once (the second waits for the first's row locks, then finds them unmarked).
   */
  async takeUnqueued(trx: Tx): Promise<Array<Pick<OutboxRow, 'id' | 'next_attempt_at'>>> {
    return trx('mail_outbox')
      .where({ claimed_by: UNQUEUED })
      .update({ claimed_by: null })
      .returning(['id', 'next_attempt_at']);
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

  /**
   * Deletes a person's sent and failed rows (or counts them when `dryRun`); answers how many, and the
   * rows still queued or retrying, which are left alone: the worker owns them until they finish.
   */
  async eraseForPerson(
    address: string,
    lookInsideText: boolean,
    dryRun: boolean,
    trx?: Tx,
  ): Promise<{ erased: number; pending: Array<Pick<OutboxRow, 'id' | 'subject' | 'status'>> }> {
    const q = this.personQuery(address, lookInsideText, await this.folding(), trx);
    const pending = await q
      .clone()
      .whereIn('status', PENDING as MailStatus[])
      .select('id', 'subject', 'status')
      .orderBy('seq');
    const finished = q.clone().whereIn('status', FINISHED as MailStatus[]);
    const erased = dryRun
      ? Number((await finished.count<{ total: string }[]>({ total: '*' }))[0].total)
      : await finished.delete();
    return { erased, pending };
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
