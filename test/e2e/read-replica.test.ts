import { expect } from 'chai';
import pg from 'pg';
import { connectDatabase } from '../../kernel/database.ts';
import { READ_APPLICATION_NAME } from '../../kernel/read-database.ts';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../helpers/kernel.ts';
import { startStreamingPair, streamingPairMissing, type StreamingPair } from '../helpers/streaming-replica.ts';

const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8';
/** The staleness bound docs/scaling.md promises on one host: the replica's replay plus a poll. */
const BOUND_MS = 1_000;

/** Connections of `application_name` on the server of `url`. */
async function connectionsNamed(url: string, name: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [name],
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

// A real streaming replica: a throwaway primary and a standby cloned from it with pg_basebackup -R.
// Pausing the standby's replay makes it lag on demand: what the public routes answer then can only
// have come from the standby, what staff see only from the primary.
describe('read replica: public reads from a streaming standby (DATABASE_READ_URL)', function () {
  this.timeout(60_000);
  let pair: StreamingPair | undefined;
  let t: TestKernel;
  let staff: TestUser;
  let classId: string;
  let objectId: string;
  let site: { id: string; rootPath: string };
  let pageId: string;

  before(async function () {
    const missing = streamingPairMissing();
    if (missing) {
      console.warn(`read replica test skipped: ${missing}`);
      return this.skip();
    }
    pair = await startStreamingPair();
    t = await startTestKernel({
      plugins: ['data', 'content', 'search'],
      database: connectDatabase(pair.primaryUrl, { poolMax: 5 }),
      env: {
        DATABASE_READ_URL: pair.standbyUrl,
        DATABASE_READ_POOL_MAX: '3',
        PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    staff = await t.admin();
    const cls = await t.call('POST', '/data-classes', staff, {
      name: 'replicated',
      fields: [{ name: 'title', type: 'text' }],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    classId = cls.json().id;
    const obj = await t.call('POST', '/data-objects', staff, {
      classId,
      published: true,
      attributes: { title: 'first' },
    });
    expect(obj.statusCode, obj.body).to.equal(201);
    objectId = obj.json().id;
    const web = await t.call('POST', '/cms-one/websites', staff, {
      name: 'Replicated',
      rootPath: '/rep',
      locales: ['en'],
    });
    expect(web.statusCode, web.body).to.equal(201);
    site = web.json();
    const page = await t.call('POST', '/cms-one/pages', staff, {
      websiteId: site.id,
      locale: 'en',
      path: '/list',
      title: 'Bound list',
      published: true,
      content: {
        type: 'ul',
        props: { className: 'items', dataBinding: { classId } },
        children: [{ type: 'li', text: '{{title}}' }],
      },
    });
    expect(page.statusCode, page.body).to.equal(201);
    pageId = page.json().id;
    expect(await t.kernel.resolve('readReplica').caughtUp()).to.equal(true);
  });
  after(async () => {
    await t?.close();
    await pair?.stop();
  });

  const publicObject = async () =>
    (await t.call('GET', `/public/data-objects/${objectId}`, null)).json()?.attributes?.title;
  const staffObject = async () => (await t.call('GET', `/data-objects/${objectId}`, staff)).json().attributes.title;
  const publicPage = async () =>
    (await t.call('GET', `/public/page${site.rootPath}/list`, null, undefined, { accept: BROWSER })).body;
  const publicSearch = async (q: string) => (await t.call('GET', `/public/search?q=${q}`, null)).json().results.length;
  const sitemap = async () => (await t.call('GET', `/public/sitemap.xml?websiteId=${site.id}`, null)).body;

  it('the public routes hold connections on the standby, named so; the primary has none of them', async () => {
    expect(await publicObject()).to.equal('first');
    expect(await publicPage()).to.contain('<li>first</li>');
    expect(await connectionsNamed(pair!.standbyUrl, READ_APPLICATION_NAME)).to.be.greaterThan(0);
    expect(await connectionsNamed(pair!.primaryUrl, READ_APPLICATION_NAME)).to.equal(0);
  });

  it('while the standby lags, public routes answer its rows; staff reads, writes and previews the primary', async () => {
    await pair!.replay(false);
    try {
      const edit = await t.call('PATCH', `/data-objects/${objectId}`, staff, { attributes: { title: 'second' } });
      expect(edit.statusCode, edit.body).to.equal(200);
      const added = await t.call('POST', '/cms-one/pages', staff, {
        websiteId: site.id,
        locale: 'en',
        path: '/zebrafinch',
        title: 'Zebrafinch',
        published: true,
        content: { type: 'p', text: 'zebrafinch' },
      });
      expect(added.statusCode, added.body).to.equal(201);

      // Staff: the primary, at once (the write's own answer and a read after it).
      expect(edit.json().attributes.title).to.equal('second');
      expect(await staffObject()).to.equal('second');
      const staffSearch = await t.call('GET', '/cms-one/search?q=zebrafinch', staff);
      expect(staffSearch.json().results.length, staffSearch.body).to.equal(1);
      // A staff preview right after the write: the canvas reads bound data from the primary.
      const canvas = await t.call('POST', `/cms-one/pages/${pageId}/canvas`, staff, {});
      expect(canvas.statusCode, canvas.body).to.equal(200);
      expect(canvas.body).to.contain('>second</li>');

      // Public: the standby, which has not replayed either write (the read cache was dropped by the
      // change and refilled from the standby: it must not keep that answer once the standby replays).
      expect(await publicObject()).to.equal('first');
      expect(await publicPage()).to.contain('<li>first</li>');
      expect(await publicSearch('zebrafinch')).to.equal(0);
      expect(await sitemap()).not.to.contain('/zebrafinch');
    } finally {
      await pair!.replay(true);
    }
    // Replay resumed: every public route shows both writes within the bound.
    const started = Date.now();
    await eventually(async () => (await publicObject()) === 'second', { timeoutMs: BOUND_MS, what: 'public object' });
    await eventually(async () => (await publicPage()).includes('<li>second</li>'), {
      timeoutMs: BOUND_MS,
      what: 'public page with the bound object',
    });
    await eventually(async () => (await publicSearch('zebrafinch')) === 1, { timeoutMs: BOUND_MS, what: 'search' });
    await eventually(async () => (await sitemap()).includes('/zebrafinch'), { timeoutMs: BOUND_MS, what: 'sitemap' });
    expect(Date.now() - started).to.be.below(BOUND_MS);
  });

  it('a public read right after a write is stale by no more than the replay (no pause)', async () => {
    const edit = await t.call('PATCH', `/data-objects/${objectId}`, staff, { attributes: { title: 'third' } });
    expect(edit.statusCode, edit.body).to.equal(200);
    const started = Date.now();
    await eventually(async () => (await publicObject()) === 'third', { timeoutMs: BOUND_MS, what: 'public object' });
    // Read again: the cached answer is the new one, not one refilled before the standby replayed.
    expect(await publicObject()).to.equal('third');
    expect(Date.now() - started).to.be.below(BOUND_MS);
  });
});
