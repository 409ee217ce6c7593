// Runs the test suite in a seeded random order to show that no test depends on another one.
//
//   npm run test:shuffled                      files, suites and tests in a random order (seed printed)
//   npm run test:shuffled -- --seed 1234       the same order again
//   npm run test:shuffled -- --each            every test alone, in a random order
//   npm run test:shuffled -- plugins/data      only the test files under these paths
//
// Mocha has no shuffle of its own: the files are added in a shuffled order, and once loaded every
// suite's child suites and tests are shuffled in place before the run. `--each` runs the loaded suite
// once per test with an exact grep (minutes) and lists the tests that failed alone.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Mocha from 'mocha';
import { PROJECT_ROOT } from '../kernel/loader.ts';
import { releaseTestDatabases, teardownTestDatabases } from '../test/helpers/database.ts';
import { runAfterEachTest, runAfterRoot } from '../test/helpers/root-hooks.ts';

const TEST_ROOTS = ['test', 'plugins'];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seed: { type: 'string' }, each: { type: 'boolean' } },
});
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);

/** mulberry32: a small seeded generator, enough to make an order repeatable. */
function seededRandom(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** The files `npm test` runs (test/**, plugins/<id>/test/**), limited to the given paths if any. */
function testFiles(only: string[]): string[] {
  const files = TEST_ROOTS.flatMap((root) =>
    (readdirSync(path.join(PROJECT_ROOT, root), { recursive: true }) as string[])
      .map((f) => path.join(root, f))
      .filter((f) => f.endsWith('.test.ts') && (root === 'test' || f.split(path.sep)[2] === 'test')),
  ).sort();
  const wanted = only.map((p) => path.relative(PROJECT_ROOT, path.resolve(p)));
  return files.filter((f) => wanted.length === 0 || wanted.some((w) => f === w || f.startsWith(w + path.sep)));
}

function shuffleSuite(suite: Mocha.Suite, random: () => number): void {
  shuffle(suite.suites, random);
  shuffle(suite.tests, random);
  for (const child of suite.suites) shuffleSuite(child, random);
}

function allTests(suite: Mocha.Suite): Mocha.Test[] {
  return [...suite.tests, ...suite.suites.flatMap(allTests)];
}

async function loadSuite(files: string[], rootHooks?: Mocha.RootHookObject): Promise<Mocha> {
  const mocha = new Mocha({ timeout: 30_000, rootHooks });
  for (const file of files) mocha.addFile(path.join(PROJECT_ROOT, file));
  await mocha.loadFilesAsync();
  return mocha;
}

async function runShuffled(files: string[]): Promise<number> {
  const random = seededRandom(seed);
  const { mochaHooks } = await import('../test/setup.ts');
  const mocha = await loadSuite(shuffle([...files], random), mochaHooks);
  shuffleSuite(mocha.suite, random);
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  await teardownTestDatabases();
  return failures;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Runs every test alone: the files are loaded once, then the suite runs once per test with an exact
 * grep, so each test gets only its own suites' hooks (a fresh kernel from its `before`), never state
 * an earlier test left behind. Stricter than separate processes in one way: state kept in a describe
 * body outlives a run, so a test relying on it being fresh fails here too.
 */
async function runEach(files: string[]): Promise<number> {
  const random = seededRandom(seed);
  await import('../test/setup.ts'); // its settings (outbound HTTP, hashing cost), not its root hook
  const mocha = await loadSuite(files);
  mocha.cleanReferencesAfterRun(false);
  mocha.reporter(Mocha.reporters.Base);
  const tests = shuffle(allTests(mocha.suite), random);
  const failed: string[] = [];
  for (const [i, test] of tests.entries()) {
    const title = test.fullTitle();
    mocha.grep(new RegExp(`^${escapeRegExp(title)}$`));
    const errors: string[] = [];
    const failures = await new Promise<number>((resolve) => {
      mocha
        .run(resolve)
        .on('fail', (t: Mocha.Runnable, err: Error) => errors.push(`${t.fullTitle()}: ${err.stack ?? err.message}`));
    });
    // What the root hooks do after a test and after the root suite (the browser helper's pages and
    // product), then the test's databases.
    await runAfterEachTest();
    await runAfterRoot();
    await releaseTestDatabases();
    process.stdout.write(failures ? 'F' : '.');
    if ((i + 1) % 80 === 0) process.stdout.write(` ${i + 1}/${tests.length}\n`);
    if (failures)
      failed.push(
        `FAILED ALONE: ${path.relative(PROJECT_ROOT, test.file!)} "${title}"\n${errors.join('\n').split('\n').slice(0, 30).join('\n')}`,
      );
  }
  await teardownTestDatabases();
  console.log(`\n\n${tests.length - failed.length} of ${tests.length} tests pass alone`);
  for (const f of failed) console.log(`\n${f}`);
  return failed.length;
}

// Interrupted, the cluster started for this run stops too (its library's signal handlers are removed).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void teardownTestDatabases().finally(() => process.exit(130)));
}

const files = testFiles(positionals);
console.log(`seed ${seed} (repeat with --seed ${seed}), ${files.length} files`);
const failures = values.each ? await runEach(files) : await runShuffled(files);
console.log(`seed ${seed}: ${failures ? `${failures} failing` : 'all passing'}`);
process.exit(failures ? 1 : 0);
