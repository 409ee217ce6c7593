import webpush from 'web-push';
import { type JobRun, type PluginDeps, type Tx, unavailable } from '../../kernel/index.ts';
import type { PushConfig } from './config.ts';
import { deliver } from './sends.ts';
import { type PushSendRow, PushStore } from './store/push-store.ts';

export type PushDeps = PluginDeps<
  'db' | 'clock' | 'config' | 'secretBox' | 'outboundGuard' | 'jobs',
  'outboundFetch' | 'websiteUploadRules',
  typeof PushConfig
>;

const KEY_NAME = 'INTEGRATION_SECRETS_ENCRYPTION_KEY';
const PLAIN = 'plain:';

/** The queue of background sends: one job per `POST /pwa/send`, keyed by its send id. */
export const SENDS_QUEUE = 'push.sends';

/** VAPID keys (generated once, kept sealed or in clear per the key rule) and sends to subscribers. */
export class PushService {
  readonly store: PushStore;
  private keys?: { publicKey: string; privateKey: string };

  constructor(private readonly deps: PushDeps) {
    this.store = new PushStore(deps.db, deps.clock);
  }

  /** Generates the pair on first start; later starts read the kept one. */
  async ensureKeys(): Promise<void> {
    const encrypted = Boolean(this.deps.pluginConfig[KEY_NAME]);
    if (!encrypted) this.deps.log.warn(`${KEY_NAME} is not set: the push private key is stored in clear text`);
    if (!(await this.store.vapidKeys())) {
      const pair = webpush.generateVAPIDKeys();
      const kept = encrypted ? this.deps.secretBox.encrypt(KEY_NAME, pair.privateKey) : PLAIN + pair.privateKey;
      await this.store.keepVapidKeys(pair.publicKey, kept);
    }
    const stored = (await this.store.vapidKeys())!;
    const privateKey = stored.privateKey.startsWith(PLAIN)
      ? stored.privateKey.slice(PLAIN.length)
      : this.deps.secretBox.decrypt(stored.privateKey);
    this.keys = { publicKey: stored.publicKey, privateKey };
  }

  get publicKey(): string {
    if (!this.keys) throw unavailable('Push keys are not ready yet', 'PUSH_NOT_READY');
    return this.keys.publicKey;
  }

  async websiteExists(websiteId: string): Promise<boolean> {
    for (const source of this.deps.websiteUploadRules ?? []) {
      if (await source.findWebsite({ id: websiteId })) return true;
    }
    return false;
  }

  /**
   * Queues a send: its row and its job commit together, and the request ends there. Refused at once
   * (503) where no message could go out: without the outbound policy (gateway plugin) or the keys.
   */
  async queueSend(s: { websiteId: string; payload: string; ttlSeconds: number; createdBy: string | null }) {
    if (!this.deps.outboundFetch)
      throw unavailable('Push sending needs the outbound HTTP policy (gateway plugin)', 'PUSH_UNAVAILABLE');
    if (!this.keys) throw unavailable('Push keys are not ready yet', 'PUSH_NOT_READY');
    return this.deps.db.transaction(async (trx) => {
      const row = await this.store.queueSend(s, trx);
      await this.deps.jobs.enqueue(SENDS_QUEUE, { sendId: row.id }, { trx, key: row.id });
      return row;
    });
  }

  /**
   * One send, in the background, within PUSH_SEND_BUDGET_SECONDS. At most once: a try that finds its
   * send already `sending` (the process of an earlier try died) marks it `interrupted` rather than
   * send every message a second time.
   */
  async runSend(job: JobRun<{ sendId: string }>): Promise<void> {
    const { sendId } = job.payload;
    const send = await this.store.startSend(sendId);
    if (!send) {
      const seen = await this.store.findSend(sendId);
      if (seen?.status === 'sending')
        await this.store.recordSend(sendId, { problem: 'the process sending it stopped' }, 'interrupted');
      return;
    }
    const outbound = this.deps.outboundFetch;
    const keys = this.keys;
    if (!outbound || !keys || send.payload === null) {
      await this.store.recordSend(sendId, { problem: 'push sending is not available in this process' }, 'failed');
      return;
    }
    const cfg = this.deps.pluginConfig;
    const subscribers = await this.store.subscribers(send.website_id);
    await this.store.recordSend(sendId, { total: subscribers.length });
    const outcome = await deliver(subscribers, {
      outbound,
      vapid: { subject: cfg.PUSH_VAPID_SUBJECT, ...keys },
      payload: send.payload,
      ttlSeconds: send.ttl_seconds,
      lanes: cfg.PUSH_SEND_CONCURRENCY,
      deadline: performance.now() + cfg.PUSH_SEND_BUDGET_SECONDS * 1000,
      publicOnly: this.deps.config.production,
      signal: job.signal,
      log: this.deps.log,
      progress: (counts) => this.store.recordSend(sendId, counts),
    });
    const { expired, ...counts } = outcome;
    await this.store.remove(expired);
    await this.store.recordSend(sendId, counts, counts.unsent > 0 ? 'over_budget' : 'done');
  }

  /** A failed try (it threw): the send is over, its row says why. */
  async sendFailed(sendId: string, problem: string, trx: Tx): Promise<void> {
    await this.store.recordSend(sendId, { problem: problem.slice(0, 500) }, 'failed', trx);
  }
}

/** A send as `GET /pwa/send/:id` and the 202 of `POST /pwa/send` answer it. */
export function sendDto(row: PushSendRow) {
  return {
    id: row.id,
    websiteId: row.website_id,
    status: row.status,
    total: row.total,
    sent: row.sent,
    removed: row.removed,
    failed: row.failed,
    unsent: row.unsent,
    problem: row.problem,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    outcome: `/pwa/send/${row.id}`,
  };
}
