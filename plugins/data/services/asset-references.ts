import { badRequest, type Tx } from '../../../kernel/index.ts';
import type { WriteContext } from './actor.ts';
import type { AssetValueRef } from './attributes.ts';
import type { DataKernelDeps } from './deps.ts';

export interface RefusedAssetReference {
  ref: AssetValueRef;
  reason: string;
  code: string;
}

/** Strings held anywhere in a stored row, walked without recursion (stored values are bounded). */
function heldStrings(attributes: Record<string, unknown> | undefined): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = attributes ? [attributes] : [];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') out.add(value);
    else if (value && typeof value === 'object') stack.push(...Object.values(value));
  }
  return out;
}

/**
 * The rule for asset values a write adds, asked once for every value of the write (one lookup): with
 * `ctx.allowedAssets` (a public form) only those files, the uploads attached for this very
 * submission; otherwise an existing file the writer can read (the asset library decides; an
 * installation without it has no files, and its values are not checked). An anonymous visitor therefore never names a library file, so no later
 * erase of "their" records can reach one. Answers why a value is refused, or null.
 */
export async function assetReferenceRule(
  trx: Tx,
  refs: readonly AssetValueRef[],
  ctx: Pick<WriteContext, 'actor' | 'allowedAssets'>,
  library: DataKernelDeps['assetLibrary'],
): Promise<(ref: AssetValueRef) => RefusedAssetReference | null> {
  const allowed = ctx.allowedAssets;
  if (allowed)
    return (ref) =>
      allowed.has(ref.ref)
        ? null
        : {
            ref,
            code: 'ASSET_NOT_ALLOWED',
            reason: 'a form may hold only a file uploaded with it ({ "uploadId": ... })',
          };
  // Without the asset library there is no file to name or to protect (and no files source for an
  // erase to delete from): the values are kept as they are, like any text.
  if (!library) return () => null;
  const found = refs.length
    ? await library.referable([...new Set(refs.map((r) => r.ref))], ctx.actor, trx)
    : new Set<string>();
  return (ref) =>
    found.has(ref.ref)
      ? null
      : { ref, code: 'ASSET_NOT_FOUND', reason: `no file you may read has the reference ${ref.ref}` };
}

/**
 * The 400 of a single-object write whose new asset value is refused. A value the row already held
 * (`before`) stays, whatever happened to its file since.
 */
export async function checkAssetReferencesOr400(
  trx: Tx,
  refs: readonly AssetValueRef[],
  ctx: Pick<WriteContext, 'actor' | 'allowedAssets'>,
  library: DataKernelDeps['assetLibrary'],
  before?: Record<string, unknown>,
): Promise<void> {
  const held = heldStrings(before);
  const added = refs.filter((r) => !held.has(r.ref));
  if (added.length === 0) return;
  const refused = await assetReferenceRule(trx, added, ctx, library);
  for (const ref of added) {
    const bad = refused(ref);
    if (bad) throw badRequest(`${ref.field}: ${bad.reason}`, ref.field, bad.code);
  }
}
