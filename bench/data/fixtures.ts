import { seededRandom } from '../lib/random.ts';

/**
 * The benchmark's data, generated from a fixed seed so every run (and product and baseline) sees
 * the same rows: articles, the 199 other classes of a year-old installation, and the big class.
 */

const WORDS = (
  'amber harbor signal meadow copper lantern river summit orchard velvet canyon ember falcon granite ' +
  'harvest island juniper kettle lagoon marble nectar oasis pepper quartz raven saffron timber umber ' +
  'valley willow yonder zephyr autumn breeze cedar dune fjord glacier hollow indigo jasper kelp lotus'
).split(' ');

export const ARTICLE_CLASS = 'Article';
export const ARTICLE_FIELDS = [
  { name: 'title', type: 'text', required: true },
  { name: 'slug', type: 'slug', required: true, unique: true },
  { name: 'body', type: 'markdown' },
];

export interface Article {
  title: string;
  slug: string;
  body: string;
  published: boolean;
}

const pick = (random: () => number) => WORDS[Math.floor(random() * WORDS.length)];
const capital = (w: string) => w[0].toUpperCase() + w.slice(1);

/** `count` articles; every fifth is a draft (80% published); bodies are about 800 characters. */
export function makeArticles(count: number, seed = 1, prefix = ''): Article[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, n) => {
    const words = [pick(random), pick(random), pick(random)];
    const number = `${prefix}${String(n).padStart(6, '0')}`;
    const title = `${capital(words[0])} ${words[1]} ${words[2]} ${number}`;
    const paragraphs = Array.from({ length: 4 }, () => Array.from({ length: 30 }, () => pick(random)).join(' ') + '.');
    return {
      title,
      slug: `${words.join('-')}-${number}`.toLowerCase(),
      body: `# ${title}\n\n${paragraphs.join('\n\n')}`,
      published: n % 5 !== 4,
    };
  });
}

export const articleAttributes = (a: Article) => ({ title: a.title, slug: a.slug, body: a.body });

const CATEGORIES = Array.from({ length: 10 }, (_, i) => `c${i}`);
const STATUSES = ['draft', 'active', 'retired'];

/** Ten indexed fields of the usual kinds: what the other classes of a real installation hold. */
export const OTHER_CLASS_FIELDS = [
  { name: 'name', type: 'text', required: true },
  { name: 'code', type: 'slug' },
  { name: 'price', type: 'number' },
  { name: 'stock', type: 'number' },
  { name: 'category', type: 'select', options: CATEGORIES },
  { name: 'status', type: 'select', options: STATUSES },
  { name: 'releasedOn', type: 'date' },
  { name: 'checkedAt', type: 'datetime' },
  { name: 'featured', type: 'boolean' },
  { name: 'author', type: 'text' },
];

export const otherClassName = (i: number) => `Collection${String(i).padStart(3, '0')}`;

export function otherClassObjects(classIndex: number, count: number): Array<{ attributes: Record<string, unknown> }> {
  const random = seededRandom(1000 + classIndex);
  const day = (n: number) => new Date(Date.UTC(2020, 0, 1) + n * 86_400_000);
  return Array.from({ length: count }, (_, n) => ({
    attributes: {
      name: `${capital(pick(random))} ${pick(random)} ${n}`,
      code: `${pick(random)}-${classIndex}-${n}`,
      price: Math.round(random() * 100_000) / 100,
      stock: Math.floor(random() * 1000),
      category: CATEGORIES[n % CATEGORIES.length],
      status: STATUSES[n % STATUSES.length],
      releasedOn: day(Math.floor(random() * 2000))
        .toISOString()
        .slice(0, 10),
      checkedAt: day(Math.floor(random() * 2000)).toISOString(),
      featured: random() < 0.1,
      author: `${capital(pick(random))} ${capital(pick(random))}`,
    },
  }));
}

export const BIG_CLASS = 'Reading';
export const BIG_CLASS_FIELDS = [
  { name: 'sensor', type: 'text', required: true },
  { name: 'value', type: 'number' },
  { name: 'takenOn', type: 'date' },
];

/** Small objects for the big class (one call's worth, numbered from `start`). */
export function bigClassObjects(start: number, count: number): Array<{ attributes: Record<string, unknown> }> {
  return Array.from({ length: count }, (_, i) => {
    const n = start + i;
    return {
      attributes: {
        sensor: `s${n % 5000}`,
        value: (n * 7919) % 100_000,
        takenOn: `202${n % 5}-0${1 + (n % 9)}-1${n % 10}`,
      },
    };
  });
}
