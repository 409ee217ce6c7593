import { badRequest, HttpError } from '../../../kernel/index.ts';

/**
 * The entity tag of a page, snippet, template, kit or layout template: its `updatedAt`, quoted.
 * Answered as `ETag` by the routes that read or write one, so an editor can send it back as `If-Match`.
 */
export const entityTag = (updatedAt: Date): string => `"${updatedAt.toISOString()}"`;

/** One entity tag of RFC 9110: `"…"` or weak `W/"…"`, the opaque part in visible ASCII without `"`. */
const ENTITY_TAG = /^(?:W\/)?"([\x21\x23-\x7e]*)"$/;
/** More tags than any client sends: a longer list is refused before it is compared. */
const MAX_TAGS = 100;

/**
 * The tags of an `If-Match` header (RFC 9110 13.1.1): `*` alone, or a comma-separated list of
 * entity tags (empty elements allowed). Anything else, `"*"` included (a tag, not the wildcard),
 * answers 400 naming the header rather than being guessed at.
 */
function parseIfMatch(header: string): '*' | string[] {
  if (header.trim() === '*') return '*';
  const elements = header
    .split(',')
    .map((element) => element.trim())
    .filter((element) => element !== '');
  const tags = elements.map((element) => ENTITY_TAG.exec(element)?.[1]);
  if (tags.length === 0 || tags.length > MAX_TAGS || tags.some((tag) => tag === undefined))
    throw badRequest(
      `If-Match must be * or up to ${MAX_TAGS} entity tags as the ETag header gives them ("…")`,
      'If-Match',
    );
  return tags as string[];
}

/**
 * A write's `If-Match` precondition (ours; the spec is silent on concurrent edits): when the header
 * is sent, the record must still carry one of its tags (or `*`), else 412 `EDIT_CONFLICT` and nothing
 * is written. Two editors (or two tabs) that loaded the same state cannot silently overwrite each
 * other: the second save is refused and its author decides. Without the header a write goes through.
 * A weak tag (`W/"…"`) matches as its strong form does: a compressing proxy weakens tags on the way,
 * and the tag names the record's state, not the bytes of an answer.
 */
export function checkIfMatch(ifMatch: string | undefined, updatedAt: Date, what: string): void {
  if (ifMatch === undefined) return;
  const tags = parseIfMatch(ifMatch);
  const current = updatedAt.toISOString();
  if (tags === '*' || tags.includes(current)) return;
  throw new HttpError(
    412,
    'EDIT_CONFLICT',
    `The ${what} was changed since it was loaded (now at ${current}); reload it or save over it`,
  );
}
