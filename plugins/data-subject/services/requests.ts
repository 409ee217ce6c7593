import { randomBytes } from 'node:crypto';
import type { Actor, PluginContributions } from '../../../kernel/index.ts';
import type { DataSubjectErasure, DataSubjectFindings, DataSubjectOptions, DataSubjectSource } from '../ports.ts';

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
  reportedOnly: Record<string, number>;
  /** Files attached to the person's records that other records use too: left in place. */
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
  constructor(private readonly sources: () => readonly PluginContributions['dataSubjectSources'][]) {}

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
    const { linkedFiles } = await this.linkedFiles(identifier, options);
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

  async erase(identifier: string, options: DataSubjectOptions, dryRun: boolean, actor: Actor): Promise<EraseAnswer> {
    const { linkedFiles, sharedFiles } = await this.linkedFiles(identifier, { ...options, excludeShared: true });
    const erased: Record<string, number> = {};
    const kept: EraseAnswer['kept'] = [];
    const reportedOnly: Record<string, number> = {};
    const failedFiles = new Map<string, string>();
    const note = (outcome: DataSubjectErasure) => {
      erased[outcome.kind] = (erased[outcome.kind] ?? 0) + outcome.erased;
      for (const k of outcome.kept) {
        kept.push({ kind: outcome.kind, id: k.id, label: k.label, reason: k.reason });
        for (const ref of k.refs ?? []) failedFiles.set(ref, k.reason);
      }
    };
    // Files first: a record whose file could not be deleted stays, so a re-run still finds it.
    for (const source of this.ordered()) {
      if (!source.erase) {
        reportedOnly[source.kind] = (await source.find(identifier, { ...options, limit: 1 })).count;
        continue;
      }
      note(await source.erase(identifier, { ...options, linkedFiles }, { dryRun, actor, failedFiles }));
    }
    return {
      dryRun,
      erased,
      kept,
      reportedOnly,
      sharedFiles,
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

  /** Files that the person's records (of every non-file source) refer to, and (erase) those shared. */
  private async linkedFiles(
    identifier: string,
    options: DataSubjectOptions,
  ): Promise<{ linkedFiles: string[]; sharedFiles: string[] }> {
    const linked = new Set<string>();
    const shared = new Set<string>();
    for (const source of this.ordered())
      if (source.stage !== 'files') {
        const found = await source.find(identifier, { ...options, limit: 1 });
        for (const f of found.linkedFiles ?? []) linked.add(f);
        for (const f of found.sharedFiles ?? []) shared.add(f);
      }
    for (const f of shared) linked.delete(f);
    return { linkedFiles: [...linked], sharedFiles: [...shared].sort() };
  }

  private async findAll(identifier: string, options: DataSubjectOptions): Promise<DataSubjectFindings[]> {
    const out: DataSubjectFindings[] = [];
    const records = this.ordered().filter((s) => s.stage !== 'files');
    for (const s of records) out.push(await s.find(identifier, options));
    const linkedFiles = [...new Set(out.flatMap((f) => f.linkedFiles ?? []))];
    for (const s of this.ordered().filter((x) => x.stage === 'files'))
      out.push(await s.find(identifier, { ...options, linkedFiles }));
    return out.map(({ linkedFiles: _, sharedFiles: __, ...f }) => f);
  }
}

/** The download's name: `data-subject-` and 12 random hex digits (nothing derived from the identifier). */
export const exportFileName = () => `data-subject-${randomBytes(6).toString('hex')}.json`;
