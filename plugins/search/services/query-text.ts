/**
 * Turns what a visitor typed into the source of a tsquery, without ever handing their text to
 * `to_tsquery`: only runs of letters, marks and digits survive (no quote, backslash, colon or
 * operator can reach the tsquery parser), and the operators are ours. The language follows
 * `websearch_to_tsquery`:
 *
 * - words are ANDed: `red house` → `'red' & 'house':*`
 * - `"quoted words"` must stand next to each other: `'red' <-> 'house'`
 * - `-word` or `-"some words"` excludes: `!'red'`
 * - `or` between two terms means either: `red or blue` → `'red' | 'blue':*`
 * - the last term, when it is a plain word (not quoted, not excluded), also matches as a prefix (`:*`),
 *   so results follow the user while they type.
 *
 * Punctuation inside a word splits it into a phrase (`e-mail` → `'e' <-> 'mail'`). At most
 * MAX_QUERY_WORDS words are used (the rest is ignored) and each word is cut to MAX_WORD_CHARS.
 * A query with no word that is not excluded matches nothing (null): `-foo` alone would have to read
 * every document.
 */
export const MAX_QUERY_WORDS = 16;
export const MAX_WORD_CHARS = 64;

interface Term {
  words: string[];
  negated: boolean;
  quoted: boolean;
  /** Joined to the previous term with OR instead of AND. */
  or: boolean;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

function wordsOf(text: string): string[] {
  return (text.match(WORD) ?? []).map((w) => [...w].slice(0, MAX_WORD_CHARS).join(''));
}

/** Splits the text into terms: quoted phrases, bare tokens, `-` negations and `or` connectors. */
function termsOf(text: string): Term[] {
  const terms: Term[] = [];
  let pendingOr = false;
  let words = 0;
  const push = (tokenWords: string[], negated: boolean, quoted: boolean) => {
    const room = MAX_QUERY_WORDS - words;
    const kept = tokenWords.slice(0, Math.max(0, room));
    if (kept.length === 0) return;
    words += kept.length;
    terms.push({ words: kept, negated, quoted, or: pendingOr && terms.length > 0 });
    pendingOr = false;
  };
  // A token is a quoted phrase (closed or running to the end) or a run of non-space characters.
  const TOKEN = /(-?)"([^"]*)"?|(\S+)/gu;
  for (const match of text.matchAll(TOKEN)) {
    if (match[3] !== undefined) {
      const raw = match[3];
      if (raw.toLowerCase() === 'or') {
        pendingOr = terms.length > 0;
        continue;
      }
      const negated = raw.startsWith('-');
      push(wordsOf(negated ? raw.slice(1) : raw), negated, false);
    } else {
      push(wordsOf(match[2]), match[1] === '-', true);
    }
  }
  return terms;
}

/** The first word of the query that is not excluded, lower-cased ('' when none): where a snippet is cut. */
export function firstPositiveWord(text: string): string {
  const term = termsOf(text.normalize('NFC')).find((t) => !t.negated);
  return term ? term.words[0].toLowerCase() : '';
}

/** The tsquery source for the user's text, or null when nothing positive is left to look for. */
export function toTsquerySource(text: string): string | null {
  const terms = termsOf(text.normalize('NFC'));
  if (!terms.some((t) => !t.negated)) return null;
  const last = terms[terms.length - 1];
  const parts = terms.map((term) => {
    const prefix = term === last && !term.quoted && !term.negated;
    const operands = term.words.map((w, i) => `'${w}'${prefix && i === term.words.length - 1 ? ':*' : ''}`);
    const body = operands.length === 1 ? operands[0] : `(${operands.join(' <-> ')})`;
    return { text: term.negated ? `!${body}` : body, or: term.or };
  });
  return parts.map((p, i) => (i === 0 ? p.text : `${p.or ? ' | ' : ' & '}${p.text}`)).join('');
}
