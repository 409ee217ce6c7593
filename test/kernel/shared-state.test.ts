import { expect } from 'chai';
import pino from 'pino';
import { SharedRateLimitStore } from '../../kernel/rate-limit.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

describe('kernel: shared state in PostgreSQL', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [] });
  });
  after(() => t?.close());

  it('keeps a value until its expiry on the kernel clock; take hands it to one caller only', async () => {
    const shared = t.kernel.resolve('sharedState');
    await shared.put('test:value:a', { n: 1 }, 60_000);
    expect(await shared.get('test:value:a')).to.deep.equal({ n: 1 });
    const taken = await Promise.all([shared.take('test:value:a'), shared.take('test:value:a')]);
    expect(taken.filter((v) => v !== null)).to.deep.equal([{ n: 1 }]);
    await shared.put('test:value:b', 'b', 60_000);
    await t.advanceClock(60_000);
    expect(await shared.get('test:value:b')).to.equal(null);
  });

  it('counts hits in a window from the first; the next window starts again', async () => {
    const shared = t.kernel.resolve('sharedState');
    const counts = await Promise.all(Array.from({ length: 5 }, () => shared.hit('test:count:a', 10_000)));
    expect(counts.map((c) => c.count).sort()).to.deep.equal([1, 2, 3, 4, 5]);
    await t.advanceClock(10_000);
    expect((await shared.hit('test:count:a', 10_000)).count).to.equal(1);
  });

  it('two processes leasing parts of one limit never admit more than the limit together', async () => {
    const shared = t.kernel.resolve('sharedState');
    const log = pino({ level: 'silent' });
    const [one, two] = [0, 1].map(() => new SharedRateLimitStore({ shared, clock: t.clock, log }));
    const limit = 64; // leases of 4
    let admitted = 0;
    for (let i = 0; i < 200; i++) {
      const counted = await (i % 2 ? two : one).hit('test:lease', 'k', 60_000, limit);
      if (counted.count <= limit) admitted++;
    }
    expect(admitted).to.be.at.most(limit);
    // What one process may hold unused when the other is refused: at most a lease each.
    expect(admitted).to.be.at.least(limit - 2 * 4);
  });

  it('requests arriving together share one claim: a burst well within the limit is admitted whole', async () => {
    const shared = t.kernel.resolve('sharedState');
    const store = new SharedRateLimitStore({ shared, clock: t.clock, log: pino({ level: 'silent' }) });
    const limit = 600; // leases of 37
    // 64 requests at once, before any claim has come back (a public route under 64 connections).
    const counted = await Promise.all(Array.from({ length: 64 }, () => store.hit('test:burst', 'k', 60_000, limit)));
    expect(counted.filter((c) => c.count > limit)).to.deep.equal([]);
    expect(counted.map((c) => c.count).sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: 64 }, (_, i) => i + 1),
    );
    // The rest of the limit is still there: two leases were claimed, not one per request.
    let admitted = 64;
    for (let i = 0; i < limit; i++) if ((await store.hit('test:burst', 'k', 60_000, limit)).count <= limit) admitted++;
    expect(admitted).to.equal(limit);
  });

  it('requests arriving together while a lease is claimed share one claim: all within the limit are admitted', async () => {
    const shared = t.kernel.resolve('sharedState');
    const store = new SharedRateLimitStore({ shared, clock: t.clock, log: pino({ level: 'silent' }) });
    const limit = 64; // leases of 4: 32 claims at once took 128, twice the limit
    const counts = await Promise.all(
      Array.from({ length: 48 }, () => store.hit('test:burst-small', 'k', 60_000, limit)),
    );
    expect(counts.filter((c) => c.count <= limit)).to.have.length(48);
    const refused = await Promise.all(
      Array.from({ length: 40 }, () => store.hit('test:burst-small', 'k', 60_000, limit)),
    );
    expect(refused.filter((c) => c.count <= limit)).to.have.length(16);
    expect(refused.at(-1)?.count).to.be.above(limit);
  });

  it('the purge schedule removes expired values and counters', async () => {
    const shared = t.kernel.resolve('sharedState');
    await shared.put('test:purge:a', 1, 1_000);
    await shared.hit('test:purge:b', 1_000);
    await t.advanceClock(10_000);
    await t.runJob('kernel', 'shared-state-purge');
    const left = await t.db('kernel_shared_values').where('key', 'like', 'test:purge:%').count({ n: '*' });
    const counters = await t.db('kernel_shared_counters').where('key', 'like', 'test:purge:%').count({ n: '*' });
    expect(Number(left[0].n) + Number(counters[0].n)).to.equal(0);
  });

  it('a cache notice reaches every listener of its cache, with the changed key', async () => {
    const notices = t.kernel.resolve('cacheNotices');
    const seen: string[] = [];
    const off = notices.on('test.cache', (key) => seen.push(key));
    // The LISTEN connection opens with the first channel.
    for (let i = 0; i < 50 && seen.length === 0; i++) {
      await notices.changed('test.cache', 'k1');
      await new Promise((r) => setTimeout(r, 20));
    }
    off();
    expect(seen).to.include('k1');
    expect(() => notices.on('Not A Name!', () => undefined)).to.throw(/cache name/);
  });
});
