import type { Db } from '../../../kernel/index.ts';
import { textSearchConfigs } from '../store/server-text.ts';

/**
 * ISO 639-1 language → PostgreSQL's built-in text search configuration of that language. Only the
 * entries whose configuration the server actually has (pg_ts_config) are used; any other locale is
 * analysed with `simple` (lower-cased words, no stemming, no stop words).
 */
const LANGUAGE_CONFIGS = new Map<string, string>([
  ['ar', 'arabic'],
  ['ca', 'catalan'],
  ['da', 'danish'],
  ['de', 'german'],
  ['el', 'greek'],
  ['en', 'english'],
  ['es', 'spanish'],
  ['eu', 'basque'],
  ['fi', 'finnish'],
  ['fr', 'french'],
  ['ga', 'irish'],
  ['hi', 'hindi'],
  ['hu', 'hungarian'],
  ['hy', 'armenian'],
  ['id', 'indonesian'],
  ['it', 'italian'],
  ['lt', 'lithuanian'],
  ['nb', 'norwegian'],
  ['ne', 'nepali'],
  ['nl', 'dutch'],
  ['nn', 'norwegian'],
  ['no', 'norwegian'],
  ['pt', 'portuguese'],
  ['ro', 'romanian'],
  ['ru', 'russian'],
  ['sr', 'serbian'],
  ['sv', 'swedish'],
  ['ta', 'tamil'],
  ['tr', 'turkish'],
  ['yi', 'yiddish'],
]);

export const FALLBACK_CONFIG = 'simple';

/** Locale → configuration name, limited to the configurations this server has. */
export class LocaleConfigs {
  private available = new Set<string>([FALLBACK_CONFIG]);

  /** Reads the server's configurations of schema pg_catalog (once, at start). */
  async load(db: Db): Promise<void> {
    this.available = new Set([FALLBACK_CONFIG, ...(await textSearchConfigs(db))]);
  }

  /** `de`, `de-AT`, `de_CH` → `german` (when the server has it); anything else → `simple`. */
  configFor(locale: string | null | undefined): string {
    if (!locale) return FALLBACK_CONFIG;
    const language = locale.toLowerCase().split(/[-_]/, 1)[0];
    const config = LANGUAGE_CONFIGS.get(language);
    return config && this.available.has(config) ? config : FALLBACK_CONFIG;
  }

  /** Every configuration a document can be analysed with here (the query is built for each one in use). */
  all(): string[] {
    return [...new Set([FALLBACK_CONFIG, ...[...LANGUAGE_CONFIGS.values()].filter((c) => this.available.has(c))])];
  }

  /** Which language codes map to which configuration on this server (for the README and /search answers). */
  table(): Array<{ language: string; config: string }> {
    return [...LANGUAGE_CONFIGS]
      .filter(([, c]) => this.available.has(c))
      .map(([language, config]) => ({ language, config }));
  }
}
