import { MARK_END, MARK_START } from '../store/search-query.ts';

const HTML_ESCAPES = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&#39;'],
]);
const MARKERS = new RegExp(`[${MARK_START}${MARK_END}]`, 'gu');

/**
 * `ts_headline` output (plain text with our private-use markers around matches) as HTML that is safe
 * to insert as-is: the text is escaped first, then the markers become `<mark>` and `</mark>`.
 */
export function markedToHtml(marked: string): string {
  return marked
    .replace(/[&<>"']/g, (c) => HTML_ESCAPES.get(c)!)
    .replaceAll(MARK_START, '<mark>')
    .replaceAll(MARK_END, '</mark>');
}

/** Removes the marker characters (and NUL, which PostgreSQL text refuses) from text about to be stored. */
export function withoutMarkers(text: string): string {
  return text.replace(MARKERS, '').replaceAll('\u0000', '');
}
