import type { DocumentKind } from './documents.ts';

/** A document this browser opened in the editor, newest first (the entry lists them). */
export interface RecentItem {
  kind: DocumentKind;
  id: string;
  /** Layouts: the website they belong to (their address has it). */
  websiteId?: string;
  title: string;
  openedAt: string;
}

const KEY = 'cms:editor-recent';
const KEEP = 8;

/** The editor's address of a document. */
export function documentUrl(item: Pick<RecentItem, 'kind' | 'id' | 'websiteId'>): string {
  const id = encodeURIComponent(item.id);
  return item.kind === 'layouts'
    ? `/cms-one/editor/layouts/${encodeURIComponent(item.websiteId ?? '')}/${id}`
    : `/cms-one/editor/${item.kind}/${id}`;
}

/** What this browser opened last (local storage: nothing leaves it). Broken entries are ignored. */
export function recentItems(): RecentItem[] {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(list)
      ? list.filter((i): i is RecentItem => typeof i?.id === 'string' && typeof i?.kind === 'string').slice(0, KEEP)
      : [];
  } catch {
    return [];
  }
}

/** Puts a document first in the recent list (storage full or off: the list is simply not kept). */
export function rememberOpened(item: Omit<RecentItem, 'openedAt'>): void {
  const rest = recentItems().filter((i) => !(i.kind === item.kind && i.id === item.id));
  try {
    localStorage.setItem(
      KEY,
      JSON.stringify([{ ...item, openedAt: new Date().toISOString() }, ...rest].slice(0, KEEP)),
    );
  } catch {
    // Private mode or a full quota: recent items are a convenience.
  }
}
