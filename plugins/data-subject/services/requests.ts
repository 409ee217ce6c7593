import { randomBytes } from 'node:crypto';
import type { Actor, PluginContributions } from '../../../kernel/index.ts';
import type {
  DataSubjectErasure,
  DataSubjectFindings,
  DataSubjectItem,
  DataSubjectOptions,
  DataSubjectSource,
} from '../ports.ts';

/** Files one erase looks at, at most (as every source: past it, run it again). */
const FILES_PER_RUN = 10_000;

/** The kinds of records the product's own plugins hold about a person, and the plugin of each. */
export const KNOWN_SOURCES: ReadonlyArray<{ kind: string; plugin: string }> = [
  { kind: 'objects', plugin: 'data' },
  { kind: 'files', plugin: 'assets' },
  { kind: 'mails', plugin: 'mail' },
  { kind: 'accounts', plugin: 'identity' },
];

/** What a data-subject request never changes, said in every erase answer. */
export const NOT_TOUCHED = [
  'audit log',
  'push subscriptions',
  'backups',
  'page and snippet history',
  'disk logs',
] as const;

export interface NotSearched {
  kind: string;
  plugin: string;
  reason: string;
}

export interface SearchAnswer {
  counts: Record<string, number>;
  results: Record<string, DataSubjectFindings['items']>;
  notSearched: NotSearched[];
}

export interface EraseAnswer {
  dryRun: boolean;
  erased: Record<string, number>;
  kept: Array<{ kind: string; id: string; label: string; reason: string }>;
  /** Found but never erased by rule, each with why: staff uploads, files something else uses too. */
  reported: Array<{ kind: string; id: string; label: string; reason: string }>;
  reportedOnly: Record<string, number>;
  /** The person's files that something else uses too (a page, another object): left in place. */
  sharedFiles: string[];
  /** True when nothing stayed: a re-run would find nothing more to erase. */
  complete: boolean;
  notSearched: NotSearched[];
  notTouched: string[];
}

/**
 * Search, export and erase over the registry `dataSubjectSources`. Each source is asked on its own;
 * the kinds of the product's plugins that are not loaded are named in `notSearched`.
 */
export class DataSubjectRequests {
  constructor(
    private readonly sources: () => readonly PluginContributions['dataSubjectSources'][],
    private readonly finders: () => readonly PluginContributions['assetReferences'][] = () => [],
  ) {}

  notSearched(): NotSearched[] {
    const present = new Set(this.sources().map((s) => s.kind));
    return KNOWN_SOURCES.filter((k) => !present.has(k.kind)).map((k) => ({
      ...k,
      reason: `the ${k.plugin} plugin is not loaded`,
    }));
  }

  async search(identifier: string, options: DataSubjectOptions): Promise<SearchAnswer> {
    const found = await this.findAll(identifier, options);
    const counts: Record<string, number> = {};
    const results: Record<string, DataSubjectFindings['items']> = {};
    for (const f of found) {
      counts[f.kind] = (counts[f.kind] ?? 0) + f.count;
      results[f.kind] = [...(results[f.kind] ?? []), ...f.items];
    }
    return { counts, results, notSearched: this.notSearched() };
  }

  /** The export's JSON text in pieces: records of each kind as the sources yield them, never buffered whole. */
  async *exportChunks(identifier: string, options: DataSubjectOptions, generatedAt: Date): AsyncGenerator<string> {
    const linkedFiles = await this.linkedFiles(identifier, options);
    yield `{"generatedAt":${JSON.stringify(generatedAt.toISOString())},"notSearched":${JSON.stringify(this.notSearched())},"records":{`;
    let firstKind = true;
    for (const source of this.ordered()) {
      if (!source.records) continue;
      yield `${firstKind ? '' : ','}${JSON.stringify(source.kind)}:[`;
      firstKind = false;
      let first = true;
      for await (const record of source.records(identifier, { ...options, linkedFiles })) {
        yield `${first ? '' : ','}${JSON.stringify(record)}`;
        first = false;
      }
      yield ']';
    }
    yield '}}';
  }

  /** `beforeDeleting`: called with what was found, after every source was asked and before anything is deleted. */
  async erase(
    identifier: string,
    options: DataSubjectOptions,
    dryRun: boolean,
    actor: Actor,
    beforeDeleting?: (found: Record<string, number>) => Promise<void>,
  ): Promise<EraseAnswer> {
    const plan = await this.erasePlan(identifier, options);
    await beforeDeleting?.(plan.found);
    const erased: Record<string, number> = {};
    const kept: EraseAnswer['kept'] = [];
    const reported: EraseAnswer['reported'] = [...plan.shared];
    const reportedOnly: Record<string, number> = {};
    const failedFiles = new Map<string, string>();
    const count = (kind: string, n: number) => {
      if (n) reportedOnly[kind] = (reportedOnly[kind] ?? 0) + n;
    };
    count('files', plan.shared.length);
    const note = (outcome: DataSubjectErasure) => {
      erased[outcome.kind] = (erased[outcome.kind] ?? 0) + outcome.erased;
      for (const k of outcome.kept) {
        kept.push({ kind: outcome.kind, id: k.id, label: k.label, reason: k.reason });
        for (const ref of k.refs ?? []) failedFiles.set(ref, k.reason);
      }
      for (const r of outcome.reported ?? []) reported.push({ kind: outcome.kind, ...r });
      count(outcome.kind, outcome.reported?.length ?? 0);
    };
    // Files first: a record whose file could not be deleted stays, so a re-run still finds it.
    for (const source of this.ordered()) {
      if (!source.erase) {
        reportedOnly[source.kind] = (await source.find(identifier, { ...options, limit: 1 })).count;
        continue;
      }
      note(
        await source.erase(identifier, { ...options, linkedFiles: plan.linkedFiles }, { dryRun, actor, failedFiles }),
      );
    }
    return {
      dryRun,
      erased,
      kept,
      reported,
      reportedOnly,
      sharedFiles: plan.shared.map((f) => f.label).sort(),
      complete: kept.length === 0,
      notSearched: this.notSearched(),
      notTouched: [...NOT_TOUCHED],
    };
  }

  /** Files-stage sources first, then the others, each in registry order. */
  private ordered(): DataSubjectSource[] {
    const all = [...this.sources()];
    return [...all.filter((s) => s.stage === 'files'), ...all.filter((s) => s.stage !== 'files')];
  }

  /** Files that the person's records (of every non-file source) refer to. */
  private async linkedFiles(identifier: string, options: DataSubjectOptions): Promise<string[]> {
    const linked = new Set<string>();
    for (const source of this.ordered())
      if (source.stage !== 'files')
        for (const f of (await source.find(identifier, { ...options, limit: 1 })).linkedFiles ?? []) linked.add(f);
    return [...linked];
  }

  /**
   * What an erase may take of the files the person's records refer to. The files source names the
   * person's own among them (uploaded by them through a form) with every reference each is known by;
   * every item of `assetReferences` is then asked whether anything besides the person's records
   * holds one of those references (a page, a theme, another object). A file something else uses stays
   * and is reported, and its references leave `linkedFiles`, so the files source does not erase it.
   */
  private async erasePlan(
    identifier: string,
    options: DataSubjectOptions,
  ): Promise<{
    linkedFiles: string[];
    shared: Array<{ kind: string; id: string; label: string; reason: string }>;
    found: Record<string, number>;
  }> {
    const linked = new Set<string>();
    const except = new Map<string, string[]>();
    const counted: Record<string, number> = {};
    for (const source of this.ordered())
      if (source.stage !== 'files') {
        const found = await source.find(identifier, { ...options, limit: 1, everyId: true });
        counted[found.kind] = (counted[found.kind] ?? 0) + found.count;
        for (const f of found.linkedFiles ?? []) linked.add(f);
        if (found.ids) except.set(source.kind, [...(except.get(source.kind) ?? []), ...found.ids]);
      }
    if (linked.size === 0) return { linkedFiles: [], shared: [], found: counted };
    const own: DataSubjectItem[] = [];
    for (const source of this.ordered())
      if (source.stage === 'files') {
        const found = await source.find(identifier, { ...options, linkedFiles: [...linked], limit: FILES_PER_RUN });
        own.push(...found.items.filter((f) => f.matched.includes('attached')));
      }
    const refsOf = (f: DataSubjectItem) => f.refs ?? [f.id, f.label];
    const held = new Map<string, string>();
    const refs = [...new Set(own.flatMap(refsOf))];
    for (const finder of this.finders())
      for (const h of await finder.holdings(refs, except))
        if (!held.has(h.ref)) held.set(h.ref, `${h.holder} (${finder.plugin})`);
    const shared: Array<{ kind: string; id: string; label: string; reason: string }> = [];
    for (const file of own) {
      const by = refsOf(file).find((r) => held.has(r));
      if (by === undefined) continue;
      for (const r of refsOf(file)) linked.delete(r);
      shared.push({
        kind: 'files',
        id: file.id,
        label: file.label,
        reason: `also used by ${held.get(by)}: left in place`,
      });
    }
    counted.files = own.length - shared.length;
    return { linkedFiles: [...linked], shared, found: counted };
  }

  private async findAll(identifier: string, options: DataSubjectOptions): Promise<DataSubjectFindings[]> {
    const out: DataSubjectFindings[] = [];
    const records = this.ordered().filter((s) => s.stage !== 'files');
    for (const s of records) out.push(await s.find(identifier, options));
    const linkedFiles = [...new Set(out.flatMap((f) => f.linkedFiles ?? []))];
    for (const s of this.ordered().filter((x) => x.stage === 'files'))
      out.push(await s.find(identifier, { ...options, linkedFiles }));
    return out.map(({ linkedFiles: _, ids: __, ...f }) => f);
  }
}

/** The download's name: `data-subject-` and 12 random hex digits (nothing derived from the identifier). */
export const exportFileName = () => `data-subject-${randomBytes(6).toString('hex')}.json`;
