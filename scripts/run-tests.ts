// Every test file under mocha's `--parallel`, the slow ones first.
//
//   node --import tsx scripts/run-tests.ts [mocha options]       the tests only
//   node --import tsx scripts/run-tests.ts --checks              and the static checks beside them (npm test)
//   TEST_JOBS=2 node --import tsx scripts/run-tests.ts            fewer workers on a busy machine
//
// With `--checks`, `scripts/checks.ts` (lint, unused code, both type checks: 65 s on two cores) runs
// at the same time as the tests, at a lower CPU priority: the suite leaves about half of two cores
// idle while its tests wait on browsers, processes and the database, and the checks fill that time
// instead of running before it. Their report is printed after the tests'; either failing fails the run.
//
// Mocha hands the files to its workers in the order it is given them. In path order the page
// editor's eleven browser files (some 250 s of the suite's test time) came near the end, so a
// worker could still be in them while the others had nothing left. Started first, longest first,
// the short files fill the gaps at the end (the longest-first rule of scheduling onto parallel
// machines).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/**
 * Files that take 10 to 90 s each, measured with `npm run test:timings`: the browser files, and the
 * ones that start real processes (`cms start`, nginx, an embedded cluster, a second mocha) or send
 * thousands of requests. A file not named here starts after them, which is right for a new file of
 * a few seconds; a new slow one belongs here (it shows at the top of `npm run test:timings`).
 */
const SLOW_FIRST = [
  /\/browser\//,
  /test\/e2e\/(cli|cli-embedded|plugin-scaffold|split-deployment|replica-processes|docs-split|migration-faults|bad-input|read-replica)\.test\.ts$/,
  /plugins\/publish\/test\/publish-faults\.test\.ts$/,
  /plugins\/event-delivery\/test\/kill-gateway\.test\.ts$/,
  /plugins\/mail\/test\/faults\.test\.ts$/,
];
/** Among the browser files, these are the longest (30 to 90 s each in a CI run). */
const LONGEST =
  /\/browser\/(admin-screens|integrations|content-screens|editor|editor-journey|phone-width|catalog|layout-settings|migration-screens)\.test\.ts$/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const pluginsDir = path.join(root, 'plugins');
const files = [
  ...testFiles(path.join(root, 'test')),
  ...readdirSync(pluginsDir).flatMap((plugin) => {
    try {
      return testFiles(path.join(pluginsDir, plugin, 'test'));
    } catch {
      return []; // a plugin without tests
    }
  }),
].map((file) => path.relative(root, file));

const isBrowser = (file: string) => file.includes('/browser/');
const isSlow = (file: string) => SLOW_FIRST.some((re) => re.test(file));
// Path order within each group (stable from one day to the next), the longest browser files first.
const browser = [
  ...files.filter((f) => isBrowser(f) && LONGEST.test(f)),
  ...files.filter((f) => isBrowser(f) && !LONGEST.test(f)),
];
const waiting = files.filter((f) => !isBrowser(f) && isSlow(f));
// Browser files (Chromium's CPU) alternate with the files that mostly wait on processes they
// started, so the workers do not all draw a page at once.
const slow = Array.from({ length: Math.max(browser.length, waiting.length) }, (_, i) => [browser[i], waiting[i]])
  .flat()
  .filter((f) => f !== undefined);
const ordered = [...slow, ...files.filter((f) => !isSlow(f))];

const withChecks = process.argv.includes('--checks');
const mochaArgs = process.argv.slice(2).filter((arg) => arg !== '--checks');

/** The static checks, niced, their output kept for the end; resolves with their exit code. */
function runChecks(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('nice', ['-n', '10', process.execPath, '--import', 'tsx', 'scripts/checks.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
    child.on('error', (error) => resolve({ code: 1, output: `checks did not start: ${error.message}\n` }));
  });
}

function runMocha(): Promise<number> {
  const jobs = process.env.TEST_JOBS ?? '3';
  const mocha = spawn('npx', ['--no-install', 'mocha', '--parallel', '--jobs', jobs, ...mochaArgs, ...ordered], {
    cwd: root,
    stdio: 'inherit',
  });
  return new Promise((resolve) => mocha.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

const checks = withChecks ? runChecks() : undefined;
const testsCode = await runMocha();
let checksCode = 0;
if (checks) {
  const { code, output } = await checks;
  checksCode = code;
  process.stdout.write(`\nstatic checks (run beside the tests):\n${output}`);
}
process.exit(testsCode || checksCode);
