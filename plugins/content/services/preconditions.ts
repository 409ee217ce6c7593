import { HttpError } from '../../../kernel/index.ts';

/**
 * The entity tag of a page, snippet, template, kit or layout template: its `updatedAt`, quoted.
 * Answered as `ETag` by the routes that read or write one, so an editor can send it back as `If-Match`.
 */
export const entityTag = (updatedAt: Date): string => `"${updatedAt.toISOString()}"`;

/**
 * A write's `If-Match` precondition (ours; the spec is silent on concurrent edits): when the header
 * is sent, the record must still carry one of its tags (or `*`), else 412 `EDIT_CONFLICT` and nothing
 * is written. Two editors (or two tabs) that loaded the same state cannot silently overwrite each
 * other: the second save is refused and its author decides. Without the header a write goes through.
 */
export function checkIfMatch(ifMatch: string | undefined, updatedAt: Date, what: string): void {
  if (ifMatch === undefined) return;
  const current = updatedAt.toISOString();
  const tags = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, ''));
  if (tags.includes('*') || tags.includes(current)) return;
  throw new HttpError(
    412,
    'EDIT_CONFLICT',
    `The ${what} was changed since it was loaded (now at ${current}); reload it or save over it`,
  );
}
