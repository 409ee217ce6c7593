import type { LoadResult } from '../lib/load.ts';
import type { Planning } from './planning.ts';
import type { ReadResult } from './reads.ts';
import { TARGETS } from './settings.ts';
import type { AddFieldResult, Timings } from './writes.ts';

export interface Report {
  header: string[];
  oneClass: ReadResult[];
  /** The 1-class reads again with working copies of `count` of the `published` articles; null when skipped. */
  workingCopies: {
    count: number;
    published: number;
    seedSeconds: number;
    /** Without working copies (the 1-class run and one with them put aside), averaged. */
    without: ReadResult[];
    /** With them (two runs), averaged. */
    reads: ReadResult[];
  } | null;
  manyClasses: ReadResult[];
  cached: ReadResult[];
  classCount: number;
  writes: { single: Timings; bulk: Timings; bulkSize: number };
  /** Adding a field to the big class under read load; null when BENCH_BIG_OBJECTS=0. */
  bigClass: { objects: number; seedSeconds: number; settleSeconds: number; addField: AddFieldResult } | null;
  planning: Array<{ label: string; oneClass: Planning; manyClasses: Planning; baseline: Planning }>;
}

/** A checked target: shown as PASS/MISS next to its figure and listed at the end when missed. */
interface Check {
  what: string;
  pass: boolean;
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (n: number) => fmt(n, n < 10 ? 2 : 1);
const mark = (c: Check) => (c.pass ? 'PASS' : 'MISS');
const signed = (fraction: number) => `${fraction >= 0 ? '+' : ''}${fmt(fraction * 100, 1)}%`;
const failures = (r: LoadResult) => r.non2xx + r.errors;

function table(header: string[], rows: string[][]): string[] {
  const right = header.map((_, i) => i > 0);
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (right[i] ? '---:' : ':---')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

const loadCells = (r: LoadResult) => [fmt(r.rps), ms(r.p50), ms(r.p99), fmt(failures(r))];

const RATIO_TARGET: Record<string, number> = {
  byId: TARGETS.ratio.byId,
  list: TARGETS.ratio.list,
  slug: TARGETS.ratio.slug,
};

function readsSection(title: string, rows: ReadResult[], checks: Check[] | null): string[] {
  const header = [
    'scenario',
    'product req/s',
    'p50 ms',
    'p99 ms',
    'failed',
    'baseline req/s',
    'p50 ms',
    'p99 ms',
    'failed',
    'product/baseline',
  ];
  if (checks) header.push(`target (ratio, p99 < ${TARGETS.readP99Ms} ms)`);
  const lines = rows.map((r) => {
    const ratio = r.product.rps / r.baseline.rps;
    const cells = [
      r.note ? `${r.label}: ${r.note}` : r.label,
      ...loadCells(r.product),
      ...loadCells(r.baseline),
      fmt(ratio, 2),
    ];
    const target = RATIO_TARGET[r.key];
    if (checks && target !== undefined) {
      const ratioCheck = {
        what: `${title}, ${r.label}: product/baseline ${fmt(ratio, 2)} (target >= ${target})`,
        pass: ratio >= target,
      };
      const p99Check = {
        what: `${title}, ${r.label}: p99 ${ms(r.product.p99)} ms (target < ${TARGETS.readP99Ms} ms)`,
        pass: r.product.p99 < TARGETS.readP99Ms,
      };
      const okCheck = {
        what: `${title}, ${r.label}: ${failures(r.product)} failed requests`,
        pass: failures(r.product) === 0,
      };
      checks.push(ratioCheck, p99Check, okCheck);
      cells.push(`>= ${target}: ${mark(ratioCheck)}; p99: ${mark(p99Check)}${okCheck.pass ? '' : '; failures: MISS'}`);
    } else if (checks) cells.push('');
    return cells;
  });
  return [`### ${title}`, '', ...table(header, lines), ''];
}

function driftSection(report: Report, checks: Check[]): string[] {
  const lines = report.oneClass.map((one) => {
    const many = report.manyClasses.find((m) => m.key === one.key)!;
    const change = many.product.rps / one.product.rps - 1;
    // The same change measured against the baseline run next to it: less sensitive to what else the machine does.
    const normalized = many.product.rps / many.baseline.rps / (one.product.rps / one.baseline.rps) - 1;
    const check = {
      what: `1 vs ${report.classCount} classes, ${one.label}: ${signed(change)} req/s (target within ${TARGETS.classCountDrift * 100}%)`,
      pass: Math.abs(change) <= TARGETS.classCountDrift,
    };
    checks.push(check);
    return [
      one.label,
      fmt(one.product.rps),
      fmt(many.product.rps),
      signed(change),
      ms(one.product.p99),
      ms(many.product.p99),
      fmt(one.product.rps / one.baseline.rps, 2),
      fmt(many.product.rps / many.baseline.rps, 2),
      signed(normalized),
      mark(check),
    ];
  });
  const header = [
    'scenario',
    'req/s 1 class',
    `req/s ${report.classCount}`,
    'change',
    'p99 1 class',
    `p99 ${report.classCount}`,
    'ratio 1 class',
    `ratio ${report.classCount}`,
    'change of ratio',
    `req/s within ${TARGETS.classCountDrift * 100}%`,
  ];
  return [`### Product: 1 class vs ${report.classCount} classes`, '', ...table(header, lines), ''];
}

function writesSection(report: Report, checks: Check[]): string[] {
  const { single, bulk, bulkSize } = report.writes;
  const singleCheck = {
    what: `single create p50 ${ms(single.p50)} ms (target < ${TARGETS.singleCreateP50Ms} ms)`,
    pass: single.p50 < TARGETS.singleCreateP50Ms,
  };
  const bulkCheck = {
    what: `bulk ${bulkSize} p50 ${ms(bulk.p50)} ms (target < ${TARGETS.bulkP50Ms} ms)`,
    pass: bulk.p50 < TARGETS.bulkP50Ms,
  };
  checks.push(singleCheck, bulkCheck);
  const lines = [
    [
      'single create (POST /data-objects), sequential',
      String(single.calls),
      ms(single.p50),
      ms(single.p99),
      `p50 < ${TARGETS.singleCreateP50Ms} ms`,
      mark(singleCheck),
    ],
    [
      `bulk create ${bulkSize} (POST /data-objects/bulk), sequential`,
      String(bulk.calls),
      ms(bulk.p50),
      ms(bulk.p99),
      `p50 < ${TARGETS.bulkP50Ms} ms`,
      mark(bulkCheck),
    ],
  ];
  const out = [`### Writes (${report.classCount} classes)`, ''];
  const big = report.bigClass;
  if (!big)
    return [
      ...out,
      ...table(['operation', 'calls', 'p50 ms', 'p99 ms', 'target', 'result'], lines),
      '',
      'Adding a field to a big class: skipped (BENCH_BIG_OBJECTS=0).',
      '',
    ];

  const { addField, objects } = big;
  const patchCheck = {
    what: `add a field to a class of ${fmt(objects)} objects: ${ms(addField.patchMs)} ms, status ${addField.status} (target < ${TARGETS.addFieldMs} ms)`,
    pass: addField.status === 200 && addField.patchMs < TARGETS.addFieldMs,
  };
  const during = addField.readsDuring;
  const duringCheck = {
    what: `reads during the field change: p99 ${ms(during.p99)} ms, ${failures(during)} failed (target < ${TARGETS.readP99Ms} ms)`,
    pass: during.p99 < TARGETS.readP99Ms && failures(during) === 0,
  };
  checks.push(patchCheck, duringCheck);
  lines.push([
    `add a field to a class of ${fmt(objects)} objects (PATCH /data-classes/:id, answered ${addField.status})`,
    '1',
    ms(addField.patchMs),
    '',
    `< ${TARGETS.addFieldMs} ms`,
    mark(patchCheck),
  ]);
  const background =
    addField.backgroundBuildMs === null
      ? 'PostgreSQL reported no index build after the PATCH answered.'
      : `Index builds went on for ${fmt(addField.backgroundBuildMs / 1000, 1)} s after the PATCH answered (pg_stat_progress_create_index); the reads below cover them.`;
  return [
    ...out,
    ...table(['operation', 'calls', 'p50 ms', 'p99 ms', 'target', 'result'], lines),
    '',
    background,
    '',
    `Public get by id on the big class while the field is added (p99 target < ${TARGETS.readP99Ms} ms: ${mark(duringCheck)}):`,
    '',
    ...table(
      ['reads', 'req/s', 'p50 ms', 'p99 ms', 'failed'],
      [
        ['without a change', ...loadCells(addField.readsBefore)],
        ['during the change', ...loadCells(during)],
      ],
    ),
    '',
  ];
}

function planningSection(report: Report): string[] {
  const cell = (p: Planning) =>
    p.planningMs === null ? `n/a${p.error ? ` (${p.error.slice(0, 80)})` : ''}` : ms(p.planningMs);
  const lines = report.planning.map((p) => [
    p.label,
    `${p.manyClasses.statements}${p.manyClasses.prepared ? ' (prepared)' : ''}`,
    cell(p.oneClass),
    cell(p.manyClasses),
    cell(p.baseline),
  ]);
  return [
    '### Planning time (EXPLAIN (SUMMARY) of the SQL each server ran for one request, median of 5)',
    '',
    ...table(
      [
        'shape',
        'product statements per request',
        'product ms, 1 class',
        `product ms, ${report.classCount} classes`,
        'baseline ms',
      ],
      lines,
    ),
    '',
  ];
}

function workingCopySection(report: Report, checks: Check[]): string[] {
  const w = report.workingCopies;
  if (!w) return [];
  const lines = w.without.map((one) => {
    const drafted = w.reads.find((m) => m.key === one.key)!;
    const change = drafted.product.rps / one.product.rps - 1;
    const normalized = drafted.product.rps / drafted.baseline.rps / (one.product.rps / one.baseline.rps) - 1;
    const check = {
      what: `working copies, ${one.label}: ${signed(normalized)} req/s against the baseline (target within ${TARGETS.workingCopyDrift * 100}%)`,
      pass: Math.abs(normalized) <= TARGETS.workingCopyDrift,
    };
    checks.push(check);
    return [
      one.label,
      fmt(one.product.rps),
      fmt(drafted.product.rps),
      signed(change),
      ms(one.product.p99),
      ms(drafted.product.p99),
      fmt(one.product.rps / one.baseline.rps, 2),
      fmt(drafted.product.rps / drafted.baseline.rps, 2),
      signed(normalized),
      mark(check),
    ];
  });
  const header = [
    'scenario',
    'req/s without',
    'req/s with',
    'change',
    'p99 without',
    'p99 with',
    'ratio without',
    'ratio with',
    'change of ratio',
    `ratio within ${TARGETS.workingCopyDrift * 100}%`,
  ];
  return [
    `### Product: 1 class without vs with working copies (${fmt(w.count)} of ${fmt(w.published)} published articles, stored in ${fmt(w.seedSeconds, 1)} s; runs alternated, two a side averaged)`,
    '',
    ...table(header, lines),
    '',
  ];
}

/** The whole report as markdown, and the targets it missed. */
export function renderReport(report: Report): { markdown: string; missed: string[] } {
  const checks: Check[] = [];
  const lines = [
    ...report.header,
    '',
    ...readsSection('Public reads, 1 class', report.oneClass, null),
    ...workingCopySection(report, checks),
    ...readsSection(`Public reads, ${report.classCount} classes`, report.manyClasses, checks),
    ...driftSection(report, checks),
    ...readsSection(
      `Cached reads (${report.classCount} classes; no target, the baseline has no cache)`,
      report.cached,
      null,
    ),
    ...writesSection(report, checks),
    ...planningSection(report),
  ];
  const missed = checks.filter((c) => !c.pass).map((c) => c.what);
  lines.push(
    missed.length
      ? `**Targets missed (${missed.length} of ${checks.length}):**\n\n- ${missed.join('\n- ')}`
      : `**All ${checks.length} targets met.**`,
  );
  return { markdown: lines.join('\n') + '\n', missed };
}
