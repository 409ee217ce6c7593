// A mocha reporter: where the suite's time goes. `npm run test:timings` runs every test file with it.
//
//   npx mocha --reporter ./scripts/test-timings.cjs 'plugins/data/test/*.test.ts'
//
// While the run goes it prints one line per finished file (its time, tests and failures);
// at the end the failures as mocha's own reporters show them, then a table of files by wall time
// (first suite begin to last suite end of that file, its hooks included) and the 30 slowest tests.
// Reporter options: `--reporter-option top=50` for more tests. CommonJS because mocha `require`s a
// reporter and Node 20 cannot require a TypeScript module.
'use strict';

const path = require('node:path');
const Mocha = require('mocha');

const { Base } = Mocha.reporters;
const {
  EVENT_RUN_END,
  EVENT_SUITE_BEGIN,
  EVENT_SUITE_END,
  EVENT_TEST_PASS,
  EVENT_TEST_FAIL,
  EVENT_TEST_PENDING,
  EVENT_HOOK_BEGIN,
  EVENT_HOOK_END,
} = Mocha.Runner.constants;

const ROOT = process.cwd();

function fileOf(runnable) {
  for (let node = runnable; node; node = node.parent) if (node.file) return path.relative(ROOT, node.file);
  return undefined;
}

function seconds(ms) {
  return (ms / 1000).toFixed(1).padStart(7);
}

class TestTimings extends Base {
  constructor(runner, options) {
    super(runner, options);
    const top = Number(options?.reporterOption?.top ?? 30);
    /** @type {Map<string, {start: number, end: number, tests: number, failed: number, flushed?: boolean}>} */
    const files = new Map();
    const tests = [];
    let current;

    const touch = (runnable) => {
      const file = fileOf(runnable);
      if (!file) return undefined;
      const now = Date.now();
      let entry = files.get(file);
      if (!entry) {
        entry = { start: now, end: now, tests: 0, failed: 0 };
        files.set(file, entry);
      }
      entry.end = now;
      if (current && current !== file) this.flush(current, files.get(current));
      current = file;
      return entry;
    };

    runner.on(EVENT_SUITE_BEGIN, (suite) => touch(suite));
    runner.on(EVENT_SUITE_END, (suite) => touch(suite));
    runner.on(EVENT_HOOK_BEGIN, (hook) => touch(hook));
    runner.on(EVENT_HOOK_END, (hook) => touch(hook));
    runner.on(EVENT_TEST_PASS, (test) => {
      const entry = touch(test);
      if (entry) entry.tests++;
      tests.push({ title: test.fullTitle(), file: fileOf(test), ms: test.duration ?? 0 });
    });
    runner.on(EVENT_TEST_FAIL, (test) => {
      const entry = touch(test);
      if (entry) {
        if (test.type === 'test') entry.tests++;
        entry.failed++;
      }
      if (test.type === 'test') tests.push({ title: test.fullTitle(), file: fileOf(test), ms: test.duration ?? 0 });
    });
    runner.on(EVENT_TEST_PENDING, (test) => touch(test));
    runner.once(EVENT_RUN_END, () => {
      if (current) this.flush(current, files.get(current));
      this.epilogue();
      const rows = [...files.entries()].map(([file, e]) => ({ file, ...e, ms: e.end - e.start }));
      rows.sort((a, b) => b.ms - a.ms);
      const total = rows.reduce((sum, r) => sum + r.ms, 0);
      const out = [];
      out.push(`\nFiles by wall time (${rows.length} files, ${seconds(total).trim()} s in files):\n`);
      out.push(`${'s'.padStart(7)}  ${'share'.padStart(5)}  ${'tests'.padStart(5)}  file`);
      for (const r of rows) {
        const share = total ? `${((100 * r.ms) / total).toFixed(1)}%` : '-';
        const failed = r.failed ? `  (${r.failed} failed)` : '';
        out.push(`${seconds(r.ms)}  ${share.padStart(5)}  ${String(r.tests).padStart(5)}  ${r.file}${failed}`);
      }
      tests.sort((a, b) => b.ms - a.ms);
      out.push(`\nThe ${Math.min(top, tests.length)} slowest tests (their own time, hooks not included):\n`);
      for (const t of tests.slice(0, top)) out.push(`${seconds(t.ms)}  ${t.file ?? '?'}: ${t.title}`);
      process.stdout.write(`${out.join('\n')}\n`);
    });
  }

  /** One line per file once mocha has moved on from it: its marks and its wall time so far. */
  flush(file, entry) {
    if (!entry || entry.flushed) return;
    entry.flushed = true;
    process.stdout.write(
      `${seconds(entry.end - entry.start)} s  ${file}  ${entry.tests} tests${entry.failed ? `, ${entry.failed} failed` : ''}\n`,
    );
  }
}

module.exports = TestTimings;
