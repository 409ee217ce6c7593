import type { Db, Tx } from '../../../kernel/index.ts';

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
 * transaction of the change that caused the mail; the worker claims due rows one at a time with
 * `FOR UPDATE SKIP LOCKED` and keeps the lock while it sends, so two processes never send one row,
 * and a process that dies mid-send leaves the row queued (its lock goes with its connection).
 */
export class OutboxStore {
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

  /** The oldest due row nobody else holds, locked in `trx` until it commits. */
  async claimDue(now: Date, trx: Tx): Promise<OutboxRow | undefined> {
    const { rows } = await trx.raw<{ rows: OutboxRow[] }>(
      `select * from mail_outbox
        where status in ('queued', 'retrying') and next_attempt_at <= ?
        order by next_attempt_at
        limit 1
        for update skip locked`,
      [now],
    );
    return rows[0];
  }

  /** One row, locked in `trx` (waits for a worker that holds it). */
  async lock(id: string, trx: Tx): Promise<OutboxRow | undefined> {
    return trx<OutboxRow>('mail_outbox').where({ id }).forUpdate().first();
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
    const q = this.personQuery(address, lookInsideText, trx);
    const [rows, [{ total }]] = await Promise.all([
      q.clone().select('id', 'created_at', 'subject', 'recipients').orderBy('seq', 'desc').limit(limit),
      q.clone().count<{ total: string }[]>({ total: '*' }),
    ]);
    return { rows, total: Number(total) };
  }

  /** The whole rows of a person (the export), newest first, sealed secrets left out. */
  async recordsForPerson(address: string, lookInsideText: boolean, limit: number, trx?: Tx): Promise<OutboxRow[]> {
    const rows: OutboxRow[] = await this.personQuery(address, lookInsideText, trx).orderBy('seq', 'desc').limit(limit);
    return rows.map((r) => ({ ...r, secrets_sealed: null }));
  }

  /** Deletes a person's rows (or counts them when `dryRun`); answers how many. */
  async eraseForPerson(address: string, lookInsideText: boolean, dryRun: boolean, trx?: Tx): Promise<number> {
    const q = this.personQuery(address, lookInsideText, trx);
    if (dryRun) return Number((await q.count<{ total: string }[]>({ total: '*' }))[0].total);
    return q.delete();
  }

  /** Rows whose to or cc is `address` (whole value, any case), optionally also a word in subject or body. */
  private personQuery(address: string, lookInsideText: boolean, trx?: Tx) {
    const lower = address.toLowerCase();
    return (trx ?? this.db)('mail_outbox').where((w) => {
      void w.whereRaw('recipients @> array[?]::text[]', [lower]);
      if (lookInsideText) {
        // A word: the whole value between non-word characters (not part of a longer address).
        const pattern = `(^|[^[:alnum:]._%+-])${lower.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^[:alnum:]._%+-])`;
        void w.orWhereRaw('subject ~* ?', [pattern]).orWhereRaw('text ~* ?', [pattern]);
      }
    });
  }
}
