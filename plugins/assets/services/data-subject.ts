import {
  type Actor,
  type ChangeActor,
  type Db,
  type PluginContributions,
  type Tx,
  type UserDirectory,
  unicodeLowerSql,
} from '../../../kernel/index.ts';
import type { AssetServiceClient } from './asset-service-client.ts';
import { announceAssetChange } from '../events.ts';
import { keys, type AssetRow } from '../model.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { deleteAsset } from '../store/asset-store.ts';
import { findSubjectAssets } from '../store/data-subject-store.ts';
import type { RecordHooks } from '../../../kernel/index.ts';

type Source = PluginContributions['dataSubjectSources'];
type DataSubjectOptions = Parameters<Source['find']>[1];

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
 * with that e-mail, and files the person uploaded through a public form that found records of other
 * sources refer to (`options.linkedFiles`: ids, uuids or paths; `form_upload_id` set). Stage `files`:
 * only the last kind is erased (the collector has already left out those something else uses), each
 * file's stored bytes first, then its row (event `asset.deleted`); a file whose bytes could not be
 * removed stays, and so do records that refer to it. The others are reported, never erased.
 */
export function assetDataSubjectSource(deps: Deps): Source {
  let folding: Promise<(expression: string) => string> | undefined;
  const matching = async (identifier: string, linked: readonly string[] = [], q: Tx | Db = deps.db) => {
    const needle = identifier.trim().toLowerCase();
    folding ??= unicodeLowerSql(deps.db);
    const fold = await folding;
    const uploader = await deps.users.findByEmail(needle);
    const uuids = linked.filter((r) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(r));
    const rows = await findSubjectAssets(q, {
      identifier: identifier.trim(),
      fold,
      uploaderId: uploader?.id,
      linked,
      uuids,
      limit: SCAN_CAP,
    });
    return rows.map((row) => {
      const matched: string[] = [];
      if (uploader && row.created_by === uploader.id) matched.push('uploader');
      if (JSON.stringify(row.metadata).toLowerCase().includes(JSON.stringify(needle))) matched.push('metadata');
      if (row.form_upload_id && [row.id, row.uuid, row.path].some((r) => linked.includes(r))) matched.push('attached');
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
          refs: [row.id, row.uuid, row.path],
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
      const reported: Array<{ id: string; label: string; reason: string }> = [];
      let erased = 0;
      for (const { row, matched } of found) {
        // Only what the person uploaded through a form goes; the rest was found, and is reported.
        if (!matched.includes('attached')) {
          reported.push({ id: row.id, label: row.path, reason: reportedReason(matched) });
          continue;
        }
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
        const deleted = await deps.db.transaction(async (trx) => {
          // Gone meanwhile (deleted by someone else): its delete was announced then, not again here.
          if (!(await deleteAsset(trx, row.id))) return false;
          await announceAssetChange(deps.recordHooks, trx, { kind: 'deleted', row, actor: changeActorOf(input.actor) });
          return true;
        });
        deps.invalidate([row.path]);
        if (deleted) erased++;
      }
      return { kind: 'files', erased, kept, reported };
    },
  };
}

/** Why a found file is not erased: a staff account's upload, or a file whose metadata names the person. */
function reportedReason(matched: readonly string[]): string {
  return matched.includes('uploader')
    ? 'uploaded by the staff account with this e-mail: staff accounts are reported only, their uploads too'
    : 'its metadata names the person, but they did not upload it through a form: reported, not erased';
}

/** The source on this process's own library and store (what every process but split core-api uses). */
export function localDataSubjectSource(
  services: { storage: ObjectStorage; delivery: { invalidate(paths: string[]): void } },
  deps: Pick<Deps, 'db' | 'users' | 'recordHooks'>,
): Source {
  return assetDataSubjectSource({
    ...deps,
    storage: services.storage,
    invalidate: (paths) => services.delivery.invalidate(paths),
  });
}

/** What core-api sends the asset service's data-subject routes (and they accept). */
export interface RemoteDataSubjectBody {
  identifier: string;
  options: { limit?: number; linkedFiles?: string[] };
  dryRun?: boolean;
  /** Who erases (the `asset.deleted` events name this actor). */
  actor?: ChangeActor;
}

/**
 * The same source through the asset-processor's service routes (`ASSET_SERVICE_URL`, bearer
 * `DAM_SERVICE_TOKEN`): core-api's files source in the split deployment, where the asset service owns
 * the library and its store. Finding, the export's records (streamed as JSON lines) and erasing (bytes
 * and rows, in the asset service) all happen there; a file it could not delete comes back in `kept`
 * with its references, so core-api keeps the objects that point at it.
 */
export function remoteDataSubjectSource(client: AssetServiceClient): Source {
  const what = 'asset service (data-subject files)';
  const body = (identifier: string, options: DataSubjectOptions): RemoteDataSubjectBody => ({
    identifier,
    options: { limit: options.limit, linkedFiles: [...(options.linkedFiles ?? [])] },
  });
  return {
    kind: 'files',
    plugin: 'assets',
    stage: 'files',
    find: (identifier, options) => client.json(what, 'POST', '/dam/data-subject/find', body(identifier, options)),
    async *records(identifier, options) {
      const res = await client.stream(what, '/dam/data-subject/records', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body(identifier, options)),
      });
      const decoder = new TextDecoder();
      let rest = '';
      for await (const chunk of res.body) {
        rest += decoder.decode(chunk as Uint8Array, { stream: true });
        const lines = rest.split('\n');
        rest = lines.pop()!;
        for (const line of lines) if (line) yield JSON.parse(line);
      }
      rest += decoder.decode();
      if (rest) yield JSON.parse(rest);
    },
    erase: (identifier, options, input) =>
      client.json(what, 'POST', '/dam/data-subject/erase', {
        ...body(identifier, options),
        dryRun: input.dryRun,
        actor: changeActorOf(input.actor),
      }),
  };
}
