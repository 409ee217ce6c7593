import type { Db, Tx } from '../../../kernel/index.ts';
import type { AssetRow } from '../model.ts';

export interface SubjectAssetQuery {
  /** The e-mail address or name searched for, as given (trimmed). */
  identifier: string;
  /** Wraps an SQL expression in the database's Unicode lower-casing (`unicodeLowerSql`). */
  fold: (expression: string) => string;
  /** The user of that e-mail address, when there is one: the files they uploaded. */
  uploaderId?: string;
  /** Ids, uuids or paths the person's records name; `uuids` the uuid-shaped ones among them. */
  linked: readonly string[];
  uuids: readonly string[];
  limit: number;
}

/**
 * Files of one person, in path order: metadata holding the identifier (case folded by Unicode rules on
 * both sides: lower() of a C-locale database folds ASCII only), files they uploaded, and files
 * uploaded through a form that their records name. A name in a field alone (a library file, a logo)
 * never makes a file theirs. One array parameter each: tens of thousands of references stay within
 * PostgreSQL's 65,535 bind parameters per statement.
 */
export async function findSubjectAssets(q: Db | Tx, query: SubjectAssetQuery): Promise<AssetRow[]> {
  const { fold, linked, uuids } = query;
  return (await q('assets')
    .where((w) => {
      void w.whereRaw(
        `jsonb_path_exists((${fold('metadata::text')})::jsonb, '$.** \\? (@ == $v)', jsonb_build_object('v', ${fold('?::text')}))`,
        [query.identifier],
      );
      if (query.uploaderId) void w.orWhere('created_by', query.uploaderId);
      if (linked.length)
        void w.orWhere((own) => {
          void own.whereNotNull('form_upload_id').andWhere((ref) => {
            void ref.whereRaw('path = ANY(?::text[])', [linked as string[]]);
            if (uuids.length)
              void ref
                .orWhereRaw('id = ANY(?::uuid[])', [uuids as string[]])
                .orWhereRaw('uuid = ANY(?::uuid[])', [uuids as string[]]);
          });
        });
    })
    .orderBy('path')
    .limit(query.limit)) as AssetRow[];
}
