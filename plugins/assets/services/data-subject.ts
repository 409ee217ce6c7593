import type { Actor, ChangeActor, Db, PluginContributions, Tx, UserDirectory } from '../../../kernel/index.ts';
import { announceAssetChange } from '../events.ts';
import { keys, type AssetRow } from '../model.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import type { RecordHooks } from '../../../kernel/index.ts';

type Source = PluginContributions['dataSubjectSources'];

/** Files one search, export or erase looks at, at most (an erase past it: run it again). */
const SCAN_CAP = 10_000;

interface Deps {
  db: Db;
  users: UserDirectory;
  storage: ObjectStorage;
  recordHooks: RecordHooks;
  /** Drops cached deliveries of removed paths. */
  invalidate(paths: string[]): void;
}

const changeActorOf = (actor: Actor): ChangeActor =>
  actor.type === 'user'
    ? { type: 'user', id: actor.id }
    : { type: 'system', id: actor.type === 'system' ? actor.id : null };

/**
 * Library files as a data-subject source (registry `dataSubjectSources`): files whose metadata holds
 * the identifier as a whole string value (any case, anywhere inside), files uploaded by the account
 * with that e-mail, and files that found records of other sources refer to (`options.linkedFiles`:
 * ids, uuids or paths). Stage `files`: erased before records, each file's stored bytes first, then its
 * row (event `asset.deleted`); a file whose bytes could not be removed stays, and so do records that
 * refer to it.
 */
export function assetDataSubjectSource(deps: Deps): Source {
  const matching = async (identifier: string, linked: readonly string[] = [], q: Tx | Db = deps.db) => {
    const needle = identifier.trim().toLowerCase();
    const uploader = await deps.users.findByEmail(needle);
    const uuids = linked.filter((r) => /^[0-9a-f-]{36}$/i.test(r));
    const rows = (await q('assets')
      .where((w) => {
        void w.whereRaw(
          `jsonb_path_exists(lower(metadata::text)::jsonb, '$.** \\? (@ == $v)', jsonb_build_object('v', ?::text))`,
          [needle],
        );
        if (uploader) void w.orWhere('created_by', uploader.id);
        if (uuids.length) void w.orWhereIn('id', uuids).orWhereIn('uuid', uuids);
        if (linked.length) void w.orWhereIn('path', linked as string[]);
      })
      .orderBy('path')
      .limit(SCAN_CAP)) as AssetRow[];
    return rows.map((row) => {
      const matched: string[] = [];
      if (uploader && row.created_by === uploader.id) matched.push('uploader');
      if (JSON.stringify(row.metadata).toLowerCase().includes(JSON.stringify(needle))) matched.push('metadata');
      if ([row.id, row.uuid, row.path].some((r) => linked.includes(r))) matched.push('attached');
      return { row, matched };
    });
  };

  return {
    kind: 'files',
    plugin: 'assets',
    stage: 'files',
    async find(identifier, options, trx) {
      const found = await matching(identifier, options.linkedFiles, trx);
      return {
        kind: 'files',
        count: found.length,
        items: found.slice(0, options.limit ?? 100).map(({ row, matched }) => ({
          id: row.id,
          at: new Date(row.updated_at).toISOString(),
          label: row.path,
          matched,
        })),
      };
    },
    async *records(identifier, options) {
      for (const { row, matched } of await matching(identifier, options.linkedFiles))
        yield {
          id: row.id,
          uuid: row.uuid,
          path: row.path,
          mimeType: row.mime_type,
          size: Number(row.size),
          metadata: row.metadata,
          createdAt: new Date(row.created_at).toISOString(),
          matched,
        };
    },
    async erase(identifier, options, input) {
      const found = await matching(identifier, options.linkedFiles);
      const kept: Array<{ id: string; label: string; reason: string; refs: string[] }> = [];
      let erased = 0;
      for (const { row } of found) {
        if (input.dryRun) {
          erased++;
          continue;
        }
        try {
          // Bytes first: a row without its file is harmless, a file without its row is an orphan no
          // one can find again. Removing what is already gone is not an error, so a re-run finishes.
          for (const prefix of keys.prefixes(row.id)) await deps.storage.deletePrefix(prefix);
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          kept.push({
            id: row.id,
            label: row.path,
            reason: `the file store answered: ${reason}`,
            refs: [row.id, row.uuid, row.path],
          });
          continue;
        }
        await deps.db.transaction(async (trx) => {
          await trx('assets').where({ id: row.id }).delete();
          await announceAssetChange(deps.recordHooks, trx, { kind: 'deleted', row, actor: changeActorOf(input.actor) });
        });
        deps.invalidate([row.path]);
        erased++;
      }
      return { kind: 'files', erased, kept };
    },
  };
}
