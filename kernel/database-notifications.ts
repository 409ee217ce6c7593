import pg from 'pg';
import type { Db } from './database.ts';
import type { Logger } from './logger.ts';

/**
 * One LISTEN connection per process for every channel its readers name (queued jobs, a plugin's cache
 * invalidations). Notices are hints: every reader also works without them (cache TTL, job polling), so
 * a lost connection is only logged and reopened after a pause.
 */
export class DatabaseNotifications {
  private client: pg.Client | undefined;
  private readonly listeners = new Map<string, Set<(payload?: string) => void>>();
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private listening: Promise<void> = Promise.resolve();
  private started = false;
  private connecting = false;

  constructor(private readonly deps: { db: Db; log: Logger; applicationName?: string }) {}

  /** Runs `listener` on every notice of `channel` (with its payload), and after a reconnect (without one). */
  on(channel: string, listener: (payload?: string) => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      // A channel added after connecting is listened to from now on (one statement at a time: a pg
      // client does not run two at once).
      const client = this.client;
      if (client)
        this.listening = this.listening
          .then(() => client.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
          .then(() => undefined)
          .catch((err) => this.scheduleReconnect(err));
      // Started without any channel: the connection opens with the first one.
      else if (this.started && !this.connecting) void this.open();
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.started = true;
    // A process nobody listens in keeps no connection for it.
    if (this.listeners.size > 0) await this.open();
  }

  private async open(): Promise<void> {
    this.connecting = true;
    try {
      await this.connect();
    } catch (err) {
      this.scheduleReconnect(err);
    } finally {
      this.connecting = false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.started = false;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // knex keeps the connection settings it was made with; the listener uses the same server and role.
    const settings = (this.deps.db.client as { connectionSettings: pg.ClientConfig }).connectionSettings;
    const client = new pg.Client({ ...settings, application_name: this.deps.applicationName ?? 'cms-listen' });
    client.on('error', (err) => this.scheduleReconnect(err));
    client.on('notification', (msg) => {
      for (const listener of this.listeners.get(msg.channel) ?? []) listener(msg.payload);
    });
    await client.connect();
    if (this.stopped) {
      await client.end();
      return;
    }
    for (const channel of this.listeners.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    this.client = client;
    // Something may have changed while no one listened.
    for (const set of this.listeners.values()) for (const listener of set) listener();
  }

  private scheduleReconnect(err: unknown): void {
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => undefined);
    if (this.stopped) return;
    this.deps.log.warn({ err }, 'database notifications: connection lost, reconnecting in 5 s (polling meanwhile)');
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.connect().catch((e) => this.scheduleReconnect(e)), 5_000);
    this.retry.unref();
  }
}
