// Runs the test suite in a seeded random order to show that no test depends on another one.
//
//   npm run test:shuffled                      files, suites and tests in a random order (seed printed)
//   npm run test:shuffled -- --seed 1234       the same order again
//   npm run test:shuffled -- --each            every test alone, each in a process of its own
//   npm run test:shuffled -- plugins/data      only the test files under these paths
//
// Mocha has no shuffle of its own: the files are added in a shuffled order, and once loaded every
// suite's child suites and tests are shuffled in place before the run. `--each` runs each test with
// an exact --grep in its own mocha process (two at a time, `--jobs n` to change), all of them on one
// database cluster started here; it takes minutes and lists the tests that failed alone.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Mocha from 'mocha';
import { PROJECT_ROOT } from '../kernel/loader.ts';
import { teardownTestDatabases, testServerUrl } from '../test/helpers/database.ts';

const TEST_ROOTS = ['test', 'plugins'];
const MOCHA_BIN = path.join(PROJECT_ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seed: { type: 'string' }, each: { type: 'boolean' }, jobs: { type: 'string' } },
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
  return new Promise((resolve) => mocha.run(resolve));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Runs one test alone in a mocha process of its own; resolves to its output when it failed. */
function runAlone(file: string, fullTitle: string, databaseUrl: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MOCHA_BIN, '--reporter', 'dot', '--grep', `^${escapeRegExp(fullTitle)}$`, file], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TEST_DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const passed = Number(/(\d+) passing/.exec(output)?.[1] ?? 0);
      resolve(code === 0 && passed >= 1 ? null : output.trim());
    });
  });
}

async function runEach(files: string[]): Promise<number> {
  const random = seededRandom(seed);
  // Loaded here only to list the tests; each runs in a child process.
  const mocha = await loadSuite(files);
  const tests = shuffle(
    allTests(mocha.suite).map((t) => ({ file: path.relative(PROJECT_ROOT, t.file!), title: t.fullTitle() })),
    random,
  );
  const databaseUrl = process.env.TEST_DATABASE_URL ?? (await testServerUrl());
  const failed: Array<{ file: string; title: string; output: string }> = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < tests.length) {
      const test = tests[next++];
      const output = await runAlone(test.file, test.title, databaseUrl);
      done++;
      process.stdout.write(output === null ? '.' : 'F');
      if (done % 80 === 0) process.stdout.write(` ${done}/${tests.length}\n`);
      if (output !== null) failed.push({ ...test, output });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Number(values.jobs ?? 2)) }, worker));
  await teardownTestDatabases();
  console.log(`\n\n${tests.length - failed.length} of ${tests.length} tests pass alone`);
  for (const f of failed) console.log(`\nFAILED ALONE: ${f.file} "${f.title}"\n${f.output.split('\n').slice(-30).join('\n')}`);
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
