// A mocha reporter: where the suite's time goes. `npm run test:timings` runs every test file with it.
//
//   npx mocha --reporter ./scripts/test-timings.cjs 'plugins/data/test/*.test.ts'
//
// While the run goes it prints one line per finished file (its time, tests and failures);
// at the end the failures as mocha's own reporters show them, then a table of files by wall time
// and the 30 slowest tests. A file's time, serial: first suite begin to last suite end of that file,
// its hooks included, with the CPU this process and its finished children (Chromium, `cms start`,
// nginx) spent meanwhile. Under `--parallel` a worker sends a file's events in one burst when the
// file is done, so its time is the sum of its tests' and hooks' own durations and there is no CPU
// column (a worker's CPU is its own; `/usr/bin/time -v npm run test:timings` gives the run's).
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

/**
 * CPU seconds so far of this process and of its finished children (Chromium, `cms start`, nginx, a
 * scaffold's mocha: Linux counts a child once it has been waited for), in ms.
 */
function cpuNow() {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = require('node:fs').readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime (fields 16 and 17 of proc(5), 14 and 15 after the name), in clock ticks.
    children = ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {}
  return { own: (own.user + own.system) / 1000, children };
}

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
    const parallel = typeof runner.isParallelMode === 'function' && runner.isParallelMode();
    const runStart = Date.now();
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
        const cpu = cpuNow();
        entry = { start: now, end: now, own: 0, tests: 0, failed: 0, cpuStart: cpu, cpuEnd: cpu };
        files.set(file, entry);
      }
      entry.end = now;
      entry.cpuEnd = cpuNow();
      if (current && current !== file) this.flush(current, files.get(current), parallel);
      current = file;
      return entry;
    };

    runner.on(EVENT_SUITE_BEGIN, (suite) => touch(suite));
    runner.on(EVENT_SUITE_END, (suite) => touch(suite));
    const addDuration = (entry, runnable) => {
      if (entry) entry.own += runnable.duration ?? 0;
    };
    runner.on(EVENT_HOOK_BEGIN, (hook) => touch(hook));
    runner.on(EVENT_HOOK_END, (hook) => addDuration(touch(hook), hook));
    runner.on(EVENT_TEST_PASS, (test) => {
      const entry = touch(test);
      addDuration(entry, test);
      if (entry) entry.tests++;
      tests.push({ title: test.fullTitle(), file: fileOf(test), ms: test.duration ?? 0 });
    });
    runner.on(EVENT_TEST_FAIL, (test) => {
      const entry = touch(test);
      if (test.type === 'test') addDuration(entry, test);
      if (entry) {
        if (test.type === 'test') entry.tests++;
        entry.failed++;
      }
      if (test.type === 'test') tests.push({ title: test.fullTitle(), file: fileOf(test), ms: test.duration ?? 0 });
    });
    runner.on(EVENT_TEST_PENDING, (test) => touch(test));
    runner.once(EVENT_RUN_END, () => {
      if (current) this.flush(current, files.get(current), parallel);
      this.epilogue();
      const rows = [...files.entries()].map(([file, e]) => ({ file, ...e, ms: parallel ? e.own : e.end - e.start }));
      rows.sort((a, b) => b.ms - a.ms);
      const total = rows.reduce((sum, r) => sum + r.ms, 0);
      const out = [];
      const cpu = cpuNow();
      out.push(
        `\nFiles by wall time (${rows.length} files, ${seconds(total).trim()} s in files; the run: ${seconds(Date.now() - runStart).trim()} s, ` +
          `CPU ${seconds(cpu.own).trim()} s in this process and ${seconds(cpu.children).trim()} s in its finished children):\n`,
      );
      out.push(
        parallel
          ? `${'s'.padStart(7)}  ${'share'.padStart(5)}  ${'tests'.padStart(5)}  file`
          : `${'s'.padStart(7)}  ${'share'.padStart(5)}  ${'cpu s'.padStart(7)}  ${'child'.padStart(7)}  ${'tests'.padStart(5)}  file`,
      );
      for (const r of rows) {
        const share = total ? `${((100 * r.ms) / total).toFixed(1)}%` : '-';
        const failed = r.failed ? `  (${r.failed} failed)` : '';
        const cpuColumns = parallel
          ? ''
          : `${seconds(r.cpuEnd.own - r.cpuStart.own)}  ${seconds(r.cpuEnd.children - r.cpuStart.children)}  `;
        out.push(
          `${seconds(r.ms)}  ${share.padStart(5)}  ${cpuColumns}${String(r.tests).padStart(5)}  ${r.file}${failed}`,
        );
      }
      tests.sort((a, b) => b.ms - a.ms);
      out.push(`\nThe ${Math.min(top, tests.length)} slowest tests (their own time, hooks not included):\n`);
      for (const t of tests.slice(0, top)) out.push(`${seconds(t.ms)}  ${t.file ?? '?'}: ${t.title}`);
      process.stdout.write(`${out.join('\n')}\n`);
    });
  }

  /** One line per file once mocha has moved on from it: its marks and its wall time so far. */
  flush(file, entry, parallel) {
    if (!entry || entry.flushed) return;
    entry.flushed = true;
    process.stdout.write(
      `${seconds(parallel ? entry.own : entry.end - entry.start)} s  ${file}  ${entry.tests} tests${entry.failed ? `, ${entry.failed} failed` : ''}\n`,
    );
  }
}

module.exports = TestTimings;
