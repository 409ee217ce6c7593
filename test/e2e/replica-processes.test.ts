import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Clock } from '../../kernel/clock.ts';
import type { DatabaseHandle } from '../../kernel/database.ts';
import { totp } from '../../plugins/identity/test/helpers.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/kernel.ts';
import { findNginx } from '../helpers/nginx.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { Browser, startReplicaSet, type Answer, type ReplicaSet } from '../helpers/replica-set.ts';

/**
 * Several replicas of every backend as real processes (`cms start --service ...`): 3 core-api,
 * 2 gateway and 2 asset-processor on one PostgreSQL, behind the nginx generated from the edge table
 * with every replica in its upstream block. Once with the shared state in PostgreSQL (on an empty
 * database: the three core-api apply the migrations together) and once in Redis. One set of processes
 * serves every case of a store mode; the kill -9 case comes last.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 4;
const ADMIN = { email: 'replicas.admin@example.com', password: 'replicas-admin-password-1' };

/** A TOTP code of the step `offsetMs` away from now (the server accepts the current step ± 1). */
const codeAt = (secret: string, offsetMs: number) =>
  totp(secret, { now: () => new Date(Date.now() + offsetMs) } as unknown as Clock);

const expectStatus = (answer: Answer, status: number) => expect(answer.status, answer.body).to.equal(status);

for (const store of ['database', 'redis'] as const) {
  describe(`replica processes: 3 core-api, 2 gateway, 2 asset-processor behind nginx (${store})`, function () {
    this.timeout(240_000);
    let database: DatabaseHandle;
    let set: ReplicaSet;
    let receiver: Receiver;
    // The signed-in administrator of every case after the first, through nginx.
    const browser = new Browser('127.0.0.11');
    const core = () => set.replicas['core-api'];
    const edge = () => set.nginx.url;

    before(async () => {
      findNginx();
      database = await createTestDatabase(store === 'database' ? { fresh: true } : {});
      receiver = await startReceiver();
      set = await startReplicaSet({
        counts: { 'core-api': 3, gateway: 2, 'asset-processor': 2 },
        env: {
          ...process.env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          DATABASE_URL: database.url,
          CMS_ADMIN_EMAIL: ADMIN.email,
          CMS_ADMIN_PASSWORD: ADMIN.password,
          TRUST_PROXY: '1',
          // Keys every replica must share (each would otherwise make its own in its data folder).
          TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
          OIDC_SETTINGS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
          UPLOAD_TOKEN_SECRET: 'replicas-upload-ticket-secret-0123456789',
          DAM_SERVICE_TOKEN: 'replicas-dam-service-token-0123456789',
          METRICS_TOKEN: 'replicas-metrics-token-0123456789',
          LOGIN_LOCKOUT_MAX_FAILURES: String(LIMIT),
          MFA_CHALLENGE_RATE_LIMIT_PER_MINUTE: String(LIMIT),
          JOBS_POLL_MS: '200',
          ...(store === 'redis'
            ? { REDIS_URL, REDIS_KEY_PREFIX: `test:replicas:${randomBytes(6).toString('hex')}:` }
            : { REDIS_URL: '' }),
        },
      });
    });
    after(async () => {
      browser.close();
      await set?.stop();
      await receiver?.close();
      await database?.close();
    });

    it('lists every replica in the upstream blocks, retrying idempotent requests on the next one', () => {
      const servers = (name: string) =>
        new RegExp(`upstream ${name} \\{ ([^}]*) keepalive`)
          .exec(set.nginx.conf)?.[1]
          .trim()
          .split(/;\s*/)
          .filter(Boolean);
      expect(servers('core_api')).to.deep.equal(core().map((r) => `server 127.0.0.1:${r.port}`));
      expect(servers('gateway')).to.have.length(2);
      expect(servers('asset_processor')).to.have.length(2);
      expect(set.nginx.conf).to.contain('proxy_next_upstream error timeout http_502 http_503;');
      expect(set.nginx.conf).to.not.contain('non_idempotent');
    });

    it('signs in on one replica, passes TOTP on another, works on a third and through nginx', async () => {
      const [a, b, c] = core().map((r) => r.url);
      // Enrolment: a session from replica A; the secret set up on B, confirmed on C.
      const enrol = new Browser('127.0.0.10');
      expectStatus(await enrol.request(a, 'POST', '/auth/login', ADMIN), 200);
      const setup = await enrol.request(b, 'POST', '/auth/mfa/setup', {});
      expectStatus(setup, 200);
      const { secret } = setup.json;
      expectStatus(await enrol.request(c, 'POST', '/auth/mfa/verify-setup', { code: codeAt(secret, -30_000) }), 200);
      enrol.close();

      // The browser: password on A, second factor on B (a code of a later step: the one above is spent).
      const first = await browser.request(a, 'POST', '/auth/login', ADMIN);
      expectStatus(first, 200);
      expect(first.json.mfaToken, first.body).to.be.a('string');
      expect(browser.cookie(), 'no session before the second factor').to.not.contain('cms_session');
      const second = await browser.request(b, 'POST', '/auth/mfa/challenge', {
        mfaToken: first.json.mfaToken,
        code: codeAt(secret, 30_000),
      });
      expectStatus(second, 200);
      expect(browser.cookie()).to.contain('cms_session=');
      const me = await browser.request(c, 'GET', '/auth/me');
      expectStatus(me, 200);
      expect(me.json.email).to.equal(ADMIN.email);
      // The pending sign-in is used up on every replica.
      const again = await new Browser('127.0.0.10').request(c, 'POST', '/auth/mfa/challenge', {
        mfaToken: first.json.mfaToken,
        code: codeAt(secret, 30_000),
      });
      expectStatus(again, 401);
      // Through nginx, round robin over the three: every request is signed in.
      for (let i = 0; i < 6; i++) expectStatus(await browser.request(edge(), 'GET', '/auth/me'), 200);
      const created = await browser.request(edge(), 'POST', '/data-classes', {
        name: 'ReplicaNote',
        fields: [{ name: 'title', type: 'text', required: true }],
      });
      expectStatus(created, 201);
    });

    it('counts a lockout across replicas: failures on each lock the e-mail on all, through nginx too', async () => {
      const user = { email: `locked-${store}@example.com`, password: 'replicas-locked-password-1' };
      expectStatus(await browser.request(edge(), 'POST', '/auth/users', { ...user, roles: ['editor'] }), 201);
      // Failures from addresses of their own, so no per-address limit is what refuses.
      for (let i = 0; i < LIMIT; i++) {
        const wrong = await new Browser(`127.0.1.${i + 1}`).request(core()[i % 3].url, 'POST', '/auth/login', {
          email: user.email,
          password: 'a wrong password',
        });
        expectStatus(wrong, 401);
      }
      for (const base of [...core().map((r) => r.url), edge()]) {
        const locked = await new Browser('127.0.1.99').request(base, 'POST', '/auth/login', user);
        expectStatus(locked, 429);
        expect(locked.json.code).to.equal('LOGIN_LOCKED');
      }
    });

    it(`counts a rate limit of ${LIMIT} once across replicas: ${LIMIT} in total through nginx`, async () => {
      const client = new Browser('127.0.2.1');
      const challenge = () =>
        client.request(edge(), 'POST', '/auth/mfa/challenge', { mfaToken: 'x'.repeat(43), code: '000000' });
      const answers: number[] = [];
      // Twice the limit through nginx (round robin): each replica alone would let LIMIT through.
      for (let i = 0; i < 2 * LIMIT; i++) answers.push((await challenge()).status);
      expect(answers.slice(0, LIMIT)).to.not.include(429);
      expect(answers.slice(LIMIT)).to.deep.equal(Array(LIMIT).fill(429));
      // Replica by replica, the same address is refused everywhere.
      for (const r of core())
        expect(
          (await client.request(r.url, 'POST', '/auth/mfa/challenge', { mfaToken: 'x'.repeat(43), code: '000000' }))
            .status,
        ).to.equal(429);
      client.close();
    });

    it("an object changed on one replica is on another replica's public route within a second", async () => {
      const className = 'ReplicaNote';
      const created = await browser.request(core()[0].url, 'POST', '/data-objects', {
        className,
        key: `note-${store}`,
        published: true,
        attributes: { title: 'first' },
      });
      expectStatus(created, 201);
      const reader = new Browser('127.0.3.1');
      const titleOn = async (base: string) => {
        const res = await reader.request(base, 'GET', `/public/data-objects/${created.json.id}`);
        return res.status === 200 ? res.json.attributes?.title : `status ${res.status}`;
      };
      // Both other replicas have read it (and hold it in their read caches).
      for (const r of core().slice(1)) expect(await titleOn(r.url)).to.equal('first');
      const changed = await browser.request(core()[0].url, 'PATCH', `/data-objects/${created.json.id}`, {
        attributes: { title: 'second' },
      });
      expectStatus(changed, 200);
      const since = Date.now();
      await Promise.all(
        core()
          .slice(1)
          .map((r) =>
            eventually(async () => (await titleOn(r.url)) === 'second', {
              timeoutMs: 1_000,
              what: `the change on ${r.port}`,
            }),
          ),
      );
      expect(Date.now() - since).to.be.below(1_000);
      for (let i = 0; i < 3; i++) expect(await titleOn(edge())).to.equal('second');
      reader.close();
    });

    it('delivers an event once with two gateways running', async () => {
      const endpoint = await browser.request(edge(), 'POST', '/api/v1/gateway/endpoints', {
        name: `hooks-${store}`,
        baseUrl: receiver.url,
      });
      expectStatus(endpoint, 201);
      const route = await browser.request(edge(), 'POST', `/api/v1/gateway/endpoints/${endpoint.json.id}/routes`, {
        method: 'POST',
        path: '/events',
      });
      expectStatus(route, 201);
      const sub = await browser.request(edge(), 'POST', '/object-event-subscriptions', {
        name: `once-${store}`,
        events: ['object.created'],
        endpointId: endpoint.json.id,
        routeId: route.json.id,
      });
      expectStatus(sub, 201);
      const object = await browser.request(edge(), 'POST', '/data-objects', {
        className: 'ReplicaNote',
        key: `evented-${store}`,
        attributes: { title: 'evented' },
      });
      expectStatus(object, 201);
      const rows = () => database.db('object_event_deliveries').where({ subscription_id: sub.json.id });
      await eventually(async () => (await rows()).length === 1 && (await rows())[0].status === 'delivered', {
        timeoutMs: 15_000,
        intervalMs: 50,
        what: 'the delivery recorded as delivered',
      });
      const [row] = await rows();
      expect(row.attempts).to.equal(1);
      const calls = receiver.calls.filter((c) => c.body.includes(object.json.id));
      expect(calls).to.have.length(1);
      expect(String(calls[0].headers['x-cms-event-id'])).to.equal(row.event_id);
      expect(receiver.maxInFlightPerEvent).to.equal(1);
    });

    it('kill -9 of one core-api under steady writes: nothing acknowledged is lost, nginx routes around it, no 5xx but those in flight', async function () {
      this.timeout(60_000);
      const WRITERS = 6;
      const READERS = 2;
      const victim = core()[0];
      interface Sent {
        kind: 'write' | 'read';
        key: string;
        started: number;
        ended: number;
        status: number;
        id?: string;
      }
      const sent: Sent[] = [];
      let stop = false;
      let n = 0;
      const load = browser.sibling('127.0.4.1');
      const write = async () => {
        while (!stop) {
          const key = `load-${store}-${n++}`;
          const started = performance.now();
          const res = await load
            .request(edge(), 'POST', '/data-objects', { className: 'ReplicaNote', key, attributes: { title: key } })
            .catch(() => ({ status: 0, json: undefined }) as unknown as Answer);
          sent.push({ kind: 'write', key, started, ended: performance.now(), status: res.status, id: res.json?.id });
        }
      };
      const read = async () => {
        while (!stop) {
          const started = performance.now();
          const res = await load
            .request(edge(), 'GET', '/data-objects?className=ReplicaNote&limit=5')
            .catch(() => ({ status: 0 }) as Answer);
          sent.push({ kind: 'read', key: '', started, ended: performance.now(), status: res.status });
        }
      };
      const workers = [...Array.from({ length: WRITERS }, write), ...Array.from({ length: READERS }, read)];
      await eventually(() => sent.filter((s) => s.status === 201).length >= 30, {
        timeoutMs: 20_000,
        what: 'writes under way',
      });
      const killedAt = performance.now();
      await victim.kill();
      const goneAt = performance.now();
      await eventually(() => sent.filter((s) => s.started > goneAt).length >= 60, {
        timeoutMs: 20_000,
        what: 'requests sent after the kill answered',
      });
      stop = true;
      await Promise.all(workers);
      load.close();

      const acknowledged = sent.filter((s) => s.kind === 'write' && s.status === 201);
      const stored = new Set(
        (
          await database
            .db('data_objects')
            .whereIn(
              'id',
              acknowledged.map((s) => s.id!),
            )
            .select('id')
        ).map((r) => r.id),
      );
      expect(
        acknowledged.filter((s) => !stored.has(s.id!)),
        'acknowledged writes missing from the database',
      ).to.deep.equal([]);
      // A 5xx (or a dropped connection) only for a request sent before the process was gone and
      // answered after it was killed: one in flight on the killed process.
      const failed = sent.filter((s) => s.status === 0 || s.status >= 500);
      for (const s of failed) {
        expect(s.kind, `${s.status} on a ${s.kind}: nginx retries an idempotent request`).to.equal('write');
        expect(
          s.started < goneAt && s.ended > killedAt,
          `${s.status} for a request sent ${(s.started - goneAt).toFixed(0)} ms after the kill`,
        ).to.equal(true);
      }
      expect(failed.length).to.be.at.most(WRITERS);
      const after = sent.filter((s) => s.started > goneAt);
      expect(after.length).to.be.at.least(60);
      expect(after.filter((s) => s.status !== 201 && s.status !== 200)).to.deep.equal([]);
      // The two replicas left take every request.
      for (const r of core().slice(1)) expectStatus(await browser.request(r.url, 'GET', '/auth/me'), 200);
    });

    it("runs a schedule's tick once: three core-api register it, one run per tick", async function () {
      this.timeout(60_000);
      // Every core-api stores the schedules at start, and pg-boss's cron check (one process at a time,
      // at start and every 30 s) turns each minute's tick of `content.scheduled-publishing` (every
      // minute) into one job of pg-boss's own queue, which hands it on as a run: the tick of the minute
      // the three started in, and of any minute since.
      const queue = 'content.scheduled-publishing';
      expect(await database.db('pgboss.schedule').where({ name: queue })).to.have.length(1);
      const runs = () => database.db('pgboss.job').where({ name: queue });
      const ticks = () =>
        database.db('pgboss.job').where({ name: '__pgboss__send-it' }).whereRaw("data->>'name' = ?", [queue]);
      const done = (jobs: Array<{ state: string }>) => jobs.length > 0 && jobs.every((j) => j.state === 'completed');
      await eventually(async () => done(await ticks()) && done(await runs()), {
        timeoutMs: 45_000,
        intervalMs: 200,
        what: 'a tick carried out',
      });
      // One run per tick, however many replicas registered the schedule.
      const [r, t] = [await runs(), await ticks()];
      expect(r, JSON.stringify({ runs: r, ticks: t })).to.have.length(t.length);
    });
  });
}
