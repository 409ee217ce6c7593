import { expect } from 'chai';
import { toTsquerySource } from '../services/query-text.ts';
import { startSearchKernel, type SearchKernel } from './search-kernel.ts';

describe('search: query language', () => {
  it('builds tsquery source text from words only, with websearch operators and a prefix on the last word', () => {
    expect(toTsquerySource('red house')).to.equal(`'red' & 'house':*`);
    expect(toTsquerySource('"red house" garden')).to.equal(`('red' <-> 'house') & 'garden':*`);
    expect(toTsquerySource('red or blue')).to.equal(`'red' | 'blue':*`);
    expect(toTsquerySource('red -blue')).to.equal(`'red' & !'blue'`);
    expect(toTsquerySource('-"big red" car')).to.equal(`!('big' <-> 'red') & 'car':*`);
    expect(toTsquerySource('e-mail')).to.equal(`('e' <-> 'mail':*)`);
    expect(toTsquerySource(`it's 'a' \\ b:* & | ! <-> ( )`)).to.equal(`('it' <-> 's') & 'a' & 'b':*`);
    expect(toTsquerySource('-only -negations')).to.equal(null);
    expect(toTsquerySource('   ')).to.equal(null);
    expect(toTsquerySource('or or')).to.equal(null);
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(toTsquerySource(many)!.split('&')).to.have.length(16);
    expect(toTsquerySource('x'.repeat(500))).to.equal(`'${'x'.repeat(64)}':*`);
  });

  describe('over HTTP', () => {
    let k: SearchKernel;
    before(async () => {
      k = await startSearchKernel();
      await k.createPage({
        title: 'Gardening in spring',
        body: 'Planting tomatoes and sunflowers in raised beds. The neighbours grow potatoes.',
        published: true,
        slug: 'garden',
      });
      await k.createPage({
        title: 'Häuser am See',
        body: 'Die schönsten Häuser und Wohnungen am Bodensee.',
        locale: 'de',
        published: true,
        slug: 'haeuser',
        websiteId: 'site-de',
      });
      await k.createPage({
        title: 'Maisons',
        body: 'Les maisons anciennes du village.',
        locale: 'fr',
        published: true,
        slug: 'maisons',
        websiteId: 'site-fr',
      });
      await k.createPage({
        title: 'Sunflower oil',
        body: 'Pressing oil from seeds <script>alert(1)</script> & more.',
        published: true,
        slug: 'oil',
      });
      await k.createPage({
        title: 'Klingon phrasebook',
        body: 'Qapla batlh',
        locale: 'tlh',
        published: true,
        slug: 'klingon',
      });
    });
    after(() => k.t.close());

    const titles = (a: { results: Array<Record<string, unknown>> }) => a.results.map((r) => r.title);

    it('matches prefixes of the last word and stems per locale', async () => {
      expect(titles(await k.publicSearch({ q: 'tomat' }))).to.deep.equal(['Gardening in spring']);
      expect(titles(await k.publicSearch({ q: 'sunflow' }))).to.have.members(['Gardening in spring', 'Sunflower oil']);
      // English stemming: "planted" and "plant" both find "Planting".
      expect(titles(await k.publicSearch({ q: 'planted', locale: 'en' }))).to.deep.equal(['Gardening in spring']);
      // German: PostgreSQL's german configuration reduces Häuser, Hauses and Haus to the same stem.
      expect(titles(await k.publicSearch({ q: 'Haus', locale: 'de' }))).to.deep.equal(['Häuser am See']);
      expect(titles(await k.publicSearch({ q: 'Wohnung', locale: 'de-AT' }))).to.deep.equal(['Häuser am See']);
      // French: "maison" finds "maisons".
      expect(titles(await k.publicSearch({ q: 'maison', locale: 'fr' }))).to.deep.equal(['Maisons']);
      // Without a locale the query is analysed with every configuration in use.
      expect(titles(await k.publicSearch({ q: 'Haus' }))).to.deep.equal(['Häuser am See']);
      // A locale PostgreSQL has no configuration for is analysed with `simple`.
      expect(titles(await k.publicSearch({ q: 'batlh', locale: 'tlh' }))).to.deep.equal(['Klingon phrasebook']);
      const stored = await k.t.db('search_documents').where({ source_type: 'page' }).select('locale', 'config');
      expect(new Map(stored.map((r) => [r.locale, r.config]))).to.deep.equal(
        new Map([
          ['en', 'english'],
          ['de', 'german'],
          ['fr', 'french'],
          ['tlh', 'simple'],
        ]),
      );
    });

    it('filters by website (plus documents of no website), locale and source type; phrases, OR and exclusion', async () => {
      expect(titles(await k.publicSearch({ q: 'see', websiteId: 'site-fr' }))).to.deep.equal([]);
      expect(titles(await k.publicSearch({ q: 'bodensee', websiteId: 'site-de' }))).to.deep.equal(['Häuser am See']);
      expect(titles(await k.publicSearch({ q: 'bodensee', type: 'object' }))).to.deep.equal([]);
      expect(titles(await k.publicSearch({ q: '"raised beds"' }))).to.deep.equal(['Gardening in spring']);
      expect(titles(await k.publicSearch({ q: '"beds raised"' }))).to.deep.equal([]);
      expect(titles(await k.publicSearch({ q: 'potatoes or pressing' }))).to.have.members([
        'Gardening in spring',
        'Sunflower oil',
      ]);
      expect(titles(await k.publicSearch({ q: 'sunflowers -tomatoes' }))).to.deep.equal(['Sunflower oil']);
    });

    it('ranks title matches first and marks matches in HTML-safe snippets', async () => {
      const answer = await k.publicSearch({ q: 'sunflower' });
      expect(answer.results[0]).to.include({ title: 'Sunflower oil', titleHtml: '<mark>Sunflower</mark> oil' });
      expect(answer.results[0].rank as number).to.be.greaterThan(answer.results[1].rank as number);
      const snippet = (await k.publicSearch({ q: 'seeds' })).results[0].snippet as string;
      expect(snippet).to.contain('<mark>seeds</mark>');
      // The parser treats tags as markup: they never reach the snippet; other text is escaped.
      expect(snippet).to.contain('&amp;');
      expect(snippet).to.not.contain('script');
      expect(snippet).to.not.match(/<(?!\/?mark>)/);
    });

    it('cuts the snippet of a long body around the first occurrence of a query word', async () => {
      const body = `${'filler words about nothing in particular. '.repeat(400)}Here the capybara swims. ${'more filler text. '.repeat(100)}`;
      await k.createPage({ title: 'Long read', body, published: true, slug: 'long' });
      const snippet = (await k.publicSearch({ q: 'capybara' })).results[0].snippet as string;
      expect(snippet).to.contain('<mark>capybara</mark>');
      // A stemmed form only (the word does not occur as typed): the snippet falls back to the start.
      const stemmed = (await k.publicSearch({ q: 'swimming', locale: 'en' })).results[0];
      expect(stemmed.title).to.equal('Long read');
      expect(stemmed.snippet).to.match(/^filler words/);
    });

    it('pages with limit, offset and hasMore', async () => {
      for (let i = 0; i < 5; i++)
        await k.createPage({ title: `Pagination walrus ${i}`, published: true, slug: `walrus-${i}` });
      const first = await k.publicSearch({ q: 'walrus', limit: 2 });
      const second = await k.publicSearch({ q: 'walrus', limit: 2, offset: 2 });
      const last = await k.publicSearch({ q: 'walrus', limit: 2, offset: 4 });
      expect(first.results).to.have.length(2);
      expect(first.hasMore).to.equal(true);
      expect(last).to.deep.include({ hasMore: false });
      expect(last.results).to.have.length(1);
      expect(new Set([...k.ids(first), ...k.ids(second), ...k.ids(last)]).size).to.equal(5);
    });

    it('hostile query text never fails the server', async () => {
      const hostile = [
        `'`,
        `''`,
        `"`,
        `\\`,
        `\\'`,
        `:*`,
        `a:*B`,
        `!`,
        `&&&`,
        `|`,
        `(((`,
        `)`,
        `<->`,
        `<2>`,
        `a <-> b`,
        `'a' & 'b'`,
        `-`,
        `--a`,
        `- -`,
        `"unterminated phrase`,
        `""`,
        `or`,
        `OR a`,
        `a or`,
        `%00`,
        `\u0001\u0002`,
        `🚲 bicycle`,
        `\uD800`,
        `x`.repeat(1000),
        Array.from({ length: 300 }, () => 'ab').join(' '),
        `the`,
        `'; DROP TABLE search_documents; --`,
        `$1`,
        `?`,
        `??`,
        `:name`,
      ];
      for (const q of hostile) {
        for (const url of [`/public/search?${k.qs({ q })}`, `/cms-one/search?${k.qs({ q })}`]) {
          const res = await k.call('GET', url, url.startsWith('/cms-one') ? k.reader : null);
          expect(res.statusCode, `${JSON.stringify(q)}: ${res.body}`).to.equal(200);
        }
      }
      const long = await k.call('GET', `/public/search?${k.qs({ q: 'x'.repeat(10_000) })}`, null);
      expect(long.statusCode).to.equal(400);
      expect(long.json()).to.include({ field: 'q' });
      const nul = await k.call('GET', `/public/search?q=a%00b`, null);
      expect(nul.statusCode).to.be.within(400, 499);
      for (const bad of [
        'limit=0',
        'limit=51',
        'offset=-1',
        'offset=1001',
        'locale=%3Cx%3E',
        'type=PAGE',
        'type=a,b,c,d,e,f,g,h,i',
        'websiteId=',
        'extra=1',
      ]) {
        const res = await k.call('GET', `/public/search?q=a&${bad}`, null);
        expect(res.statusCode, bad).to.equal(400);
      }
      expect((await k.call('GET', '/public/search', null)).statusCode).to.equal(400);
      expect(await k.t.db('search_documents').count('* as n').first()).to.not.deep.equal({ n: '0' });
    });
  });
});
