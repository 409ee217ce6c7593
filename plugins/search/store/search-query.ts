import type { Knex } from 'knex';
import type { Db } from '../../../kernel/index.ts';

/** Markers `ts_headline` puts around a match; stripped from every stored text, so only ours exist. */
export const MARK_START = '\uE000';
export const MARK_END = '\uE001';

// One passage around the best cover (fragment mode, MaxFragments > 0, measured about 4x slower per row).
const SNIPPET_OPTIONS = `StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=35, MinWords=15`;
const TITLE_OPTIONS = `StartSel=${MARK_START}, StopSel=${MARK_END}, HighlightAll=true`;

export interface SearchFilters {
  /** true: public documents only; false: non-public only; undefined: both. */
  public?: boolean;
  websiteId?: string;
  locale?: string;
  sourceTypes?: string[];
}

export interface HitRow {
  source_type: string;
  source_id: string;
  website_id: string;
  locale: string;
  title: string;
  title_marked: string;
  snippet_marked: string | null;
  url: string | null;
  public: boolean;
  meta: Record<string, unknown>;
  updated_at: Date;
  rank: number;
}

/**
 * One page of hits for an already normalized tsquery. The GIN index finds the matching rows; only the
 * first `candidates` of them (in index order) are ranked, so a query that matches half the table costs
 * the same as one that matches a thousand rows; `ts_headline` (the expensive part: it re-parses the
 * text) runs only on the page returned. Rank: `ts_rank_cd` with the default weights (title A = 1.0,
 * body B = 0.4), normalised by document length (flag 1: divided by 1 + log(length)).
 */
export async function searchDocuments(
  db: Db,
  tsquery: string,
  filters: SearchFilters,
  page: SearchPage,
): Promise<{ hits: HitRow[]; hasMore: boolean }> {
  const { sql, bindings } = searchStatement(tsquery, filters, page);
  const rows: Array<HitRow & { fetched: string }> = (await db.raw(sql, bindings)).rows;
  return { hits: rows, hasMore: rows.length > 0 && Number(rows[0].fetched) > page.limit };
}

export interface SearchPage {
  limit: number;
  offset: number;
  candidates: number;
  /** A word of the query, lower-cased: the snippet is cut from the body around its first occurrence. */
  snippetWord?: string;
}

/**
 * `ts_headline` parses all the text it is given (measured: ~5 ms for 20,000 characters, so 50 ms for
 * a page of ten long bodies). It gets a window of SNIPPET_WINDOW characters instead: starting a little
 * before the first literal occurrence of a query word (a cheap `strpos`), or at the start of the body
 * when the word does not occur as typed (a stemmed form only).
 */
const SNIPPET_WINDOW = 3000;
const SNIPPET_LEAD = 1000;

/** The statement of one search. */
function searchStatement(
  tsquery: string,
  filters: SearchFilters,
  page: SearchPage,
): { sql: string; bindings: Knex.RawBinding[] } {
  // Bindings in the order their `?` appear in the statement.
  const values: Knex.RawBinding[] = [];
  const bind = (v: Knex.RawBinding) => {
    values.push(v);
    return '?';
  };
  const where: string[] = [`d.tsv @@ ${bind(tsquery)}::tsquery`];
  if (filters.public !== undefined) where.push(filters.public ? 'd.public' : 'NOT d.public');
  if (filters.websiteId !== undefined) where.push(`d.website_id IN (${bind(filters.websiteId)}, '')`);
  if (filters.locale !== undefined) {
    // `de-AT` also finds documents in plain `de` (and documents of no locale).
    const language = filters.locale.split(/[-_]/, 1)[0];
    where.push(`d.locale IN (${bind(filters.locale)}, ${bind(language)}, '')`);
  }
  if (filters.sourceTypes?.length) where.push(`d.source_type = ANY(${bind(filters.sourceTypes)}::text[])`);
  const matches = `SELECT d.id, d.tsv FROM search_documents d WHERE ${where.join(' AND ')} LIMIT ${bind(page.candidates)}`;
  const ranked = `SELECT m.id, ts_rank_cd(m.tsv, ${bind(tsquery)}::tsquery, 1) AS rank FROM matches m ORDER BY rank DESC, m.id DESC LIMIT ${bind(page.limit + 1)} OFFSET ${bind(page.offset)}`;
  const sql = `
    WITH matches AS MATERIALIZED (${matches}),
    ranked AS MATERIALIZED (${ranked}),
    numbered AS (SELECT id, rank, row_number() OVER (ORDER BY rank DESC, id DESC) AS n, count(*) OVER () AS fetched FROM ranked)
    SELECT d.source_type, d.source_id, d.website_id, d.locale, d.title, d.url, d.public, d.meta, d.updated_at, r.rank, r.fetched,
      ts_headline(d.config::regconfig, d.title, ${bind(tsquery)}::tsquery, '${TITLE_OPTIONS}') AS title_marked,
      ts_headline(d.config::regconfig, substr(d.body, greatest(1, strpos(lower(d.body), ${bind(page.snippetWord ?? '')}) - ${SNIPPET_LEAD}), ${SNIPPET_WINDOW}), ${bind(tsquery)}::tsquery, '${SNIPPET_OPTIONS}') AS snippet_marked
    FROM numbered r JOIN search_documents d ON d.id = r.id
    WHERE r.n <= ${bind(page.limit)}
    ORDER BY r.n`;
  return { sql, bindings: values };
}
