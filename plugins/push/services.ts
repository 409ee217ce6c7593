import webpush from 'web-push';
import { type PluginDeps, unavailable } from '../../kernel/index.ts';
import type { PushConfig } from './config.ts';
import { PushStore } from './store.ts';

export type PushDeps = PluginDeps<
  'db' | 'clock' | 'config' | 'secretBox' | 'outboundGuard',
  'outboundFetch' | 'websiteUploadRules',
  typeof PushConfig
>;

const KEY_NAME = 'INTEGRATION_SECRETS_ENCRYPTION_KEY';
const PLAIN = 'plain:';

export interface SendOutcome {
  sent: number;
  removed: number;
  failed: number;
}

/** VAPID keys (generated once, kept sealed or in clear per the key rule) and sending to subscribers. */
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
   * Sends one encrypted message to every subscriber of the website through the outbound HTTP policy,
   * `PUSH_SEND_CONCURRENCY` at a time: anyone may subscribe, so a subscriber's slow endpoint may hold
   * one lane for its 10 s, never the others. A 404 or 410 from the push service means the
   * subscription expired: it is removed.
   */
  async send(websiteId: string, payload: string, ttlSeconds: number): Promise<SendOutcome> {
    const outbound = this.deps.outboundFetch;
    if (!outbound)
      throw unavailable('Push sending needs the outbound HTTP policy (gateway plugin)', 'PUSH_UNAVAILABLE');
    const keys = this.keys;
    if (!keys) throw unavailable('Push keys are not ready yet', 'PUSH_NOT_READY');
    const outcome: SendOutcome = { sent: 0, removed: 0, failed: 0 };
    const expired: string[] = [];
    const subscribers = await this.store.subscribers(websiteId);
    const deliver = async (s: (typeof subscribers)[number]) => {
      try {
        // Inside the try: a subscriber's key that cannot be encrypted to fails that subscriber only.
        const request = webpush.generateRequestDetails(
          { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
          payload,
          {
            TTL: ttlSeconds,
            contentEncoding: 'aes128gcm',
            vapidDetails: { subject: this.deps.pluginConfig.PUSH_VAPID_SUBJECT, ...keys },
          },
        );
        const answer = await outbound.fetch(request.endpoint, {
          method: request.method,
          headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
          body: request.body ?? undefined,
          timeoutMs: 10_000,
          maxBytes: 16 * 1024,
        });
        if (answer.status === 404 || answer.status === 410) expired.push(s.id);
        else if (answer.status >= 200 && answer.status < 300) outcome.sent++;
        else outcome.failed++;
      } catch (err) {
        outcome.failed++;
        this.deps.log.warn({ err: (err as Error).message, subscription: s.id }, 'push delivery failed');
      }
    };
    // Lanes take the next subscriber until none is left.
    let next = 0;
    const lane = async () => {
      while (next < subscribers.length) await deliver(subscribers[next++]!);
    };
    const lanes = Math.min(this.deps.pluginConfig.PUSH_SEND_CONCURRENCY, subscribers.length);
    await Promise.all(Array.from({ length: lanes }, lane));
    await this.store.remove(expired);
    outcome.removed = expired.length;
    return outcome;
  }
}
