/** Settings of `npm run bench:data` (environment) and the targets its report checks (PASS/MISS). */
const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
};

export const SETTINGS = {
  seconds: num('BENCH_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 3),
  articles: num('BENCH_ARTICLES', 10_000),
  otherClasses: num('BENCH_OTHER_CLASSES', 199),
  objectsPerOtherClass: num('BENCH_OBJECTS_PER_CLASS', 200),
  bigObjects: num('BENCH_BIG_OBJECTS', 1_000_000),
  /** Concurrent bulk callers while seeding the big class. */
  seedCallers: num('BENCH_SEED_CALLERS', 3),
  /** Share of the published articles given a working copy for the second 1-class read run (0 skips it). */
  workingCopies: num('BENCH_WORKING_COPIES', 0.5),
  connections: 32,
  singleCreates: 200,
  bulkCalls: 10,
  bulkSize: 500,
  strict: process.env.BENCH_STRICT === '1',
};

export const TARGETS = {
  ratio: { byId: 0.8, list: 0.7, slug: 0.8 },
  readP99Ms: 10,
  /** 1-class req/s within this fraction of the 200-class figure. */
  classCountDrift: 0.1,
  /** Req/s with working copies present within this fraction of without (against the baseline beside it). */
  workingCopyDrift: 0.1,
  singleCreateP50Ms: 5,
  bulkP50Ms: 150,
  addFieldMs: 1000,
};
