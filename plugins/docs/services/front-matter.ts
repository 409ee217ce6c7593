import { type Document, parseDocument, visit } from 'yaml';
import type { DocsWarning, Visibility } from './model.ts';

/** Front matter larger than this is refused (a warning), never parsed. */
const MAX_FRONT_MATTER = 64 * 1024;

export interface FrontMatter {
  title?: string;
  description?: string;
  visibility?: Visibility;
  order?: number;
  slug?: string;
}

export interface Split {
  data: FrontMatter;
  body: string;
  /** Lines taken by the front matter, delimiters included. */
  lines: number;
  warning?: DocsWarning;
}

const FENCE = /^---[ \t]*\r?\n/;
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Takes a YAML front matter (`---` ... `---`) off a document. Aliases are refused, so a YAML
 * "billion laughs" never expands; a syntax error, a bomb or a field of the wrong type is a
 * BAD_FRONT_MATTER warning and the document renders without it.
 */
export function splitFrontMatter(text: string, path: string): Split {
  if (!FENCE.test(text)) return { data: {}, body: text, lines: 0 };
  const end = /\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.slice(3));
  if (!end) return { data: {}, body: text, lines: 0 };
  const yamlText = text.slice(text.indexOf('\n') + 1, 3 + end.index);
  const body = text.slice(3 + end.index + end[0].length);
  const lines = text.slice(0, text.length - body.length).split('\n').length - 1;
  const bad = (message: string, line?: number): Split => ({
    data: {},
    body,
    lines,
    warning: { code: 'BAD_FRONT_MATTER', path, line, message },
  });
  if (yamlText.length > MAX_FRONT_MATTER) return bad(`Front matter is larger than ${MAX_FRONT_MATTER} bytes`, 1);
  const doc = parseDocument(yamlText, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    return bad(`Front matter: ${e.message.split('\n')[0]}`, (e.linePos?.[0]?.line ?? 0) + 1);
  }
  let value: unknown;
  if (/(^|[\s[{,:-])\*[^\s,\]}]/.test(yamlText) && yamlHasAlias(doc))
    return bad('Front matter: aliases (*name) are not allowed', 1);
  try {
    value = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    return bad(`Front matter: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  if (value === null || value === undefined) return { data: {}, body, lines };
  if (typeof value !== 'object' || Array.isArray(value)) return bad('Front matter must be a mapping of fields', 1);
  const raw = value as Record<string, unknown>;
  const data: FrontMatter = {};
  const problems: string[] = [];
  const str = (k: 'title' | 'description', max: number) => {
    if (raw[k] === undefined) return;
    if (typeof raw[k] === 'string' && (raw[k] as string).length <= max) data[k] = (raw[k] as string).trim();
    else problems.push(`${k} must be text of at most ${max} characters`);
  };
  str('title', 300);
  str('description', 1000);
  if (raw.visibility !== undefined) {
    if (raw.visibility === 'public' || raw.visibility === 'private') data.visibility = raw.visibility;
    else problems.push('visibility must be public or private');
  }
  if (raw.order !== undefined) {
    if (typeof raw.order === 'number' && Number.isFinite(raw.order)) data.order = raw.order;
    else problems.push('order must be a number');
  }
  if (raw.slug !== undefined) {
    if (typeof raw.slug === 'string' && SLUG.test(raw.slug)) data.slug = raw.slug;
    else problems.push('slug must be one path segment of letters, digits, ".", "_" and "-"');
  }
  if (problems.length) {
    // A private document whose visibility is unreadable stays private: never published by mistake.
    const split = bad(`Front matter: ${problems.join('; ')}`, 1);
    return {
      ...split,
      data: { ...data, ...(raw.visibility !== undefined && !data.visibility ? { visibility: 'private' } : {}) },
    };
  }
  return { data, body, lines };
}

function yamlHasAlias(doc: Document): boolean {
  let found = false;
  visit(doc, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}
