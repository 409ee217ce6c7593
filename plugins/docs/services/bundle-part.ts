import type { PluginContributions } from '../../../kernel/index.ts';
import type { DocsDeps } from './index.ts';

type Part = PluginContributions['websiteBundleParts'];
type Row = Record<string, unknown>;
type Plan = Awaited<ReturnType<Part['plan']>>;

/** Folders tried, at most, for a relocated documentation folder (`manual-imported`, `-2`, ...). */
const MAX_TRIES = 50;

const clean = (folder: string) => folder.replace(/^\/+|\/+$/g, '');

/** The documentation folder of a manifest's website: kind `documentation` with `settings.docs.sourceFolder`. */
function docsFolderOf(website: unknown): string | undefined {
  const site = website as Row | undefined;
  const docs = (site?.settings as Row | undefined)?.docs as Row | undefined;
  if (site?.kind !== 'documentation' || typeof docs?.sourceFolder !== 'string') return undefined;
  return clean(docs.sourceFolder);
}

/**
 * The documentation plugin's part of a website bundle (registry `websiteBundleParts`, bundles
 * plugin). Export: a documentation website carries its whole folder — the section
 * `docs: { sourceFolder, files }` names every file, so the bundle stores them with the other assets
 * (private documents keep their visibility). Import: the folder goes where it was when the library
 * has nothing there (or the very same files: they are reused), else to the first free
 * `<folder>-imported[-n]`; the dry run reports `docs: { sourceFolder, targetFolder }`, the apply
 * answers `docsFolder`, and the website's `settings.docs.sourceFolder` names the new folder.
 */
export function docsBundlePart(deps: Pick<DocsDeps, 'assetLibrary' | 'pluginConfig'>): Part {
  const maxFiles = deps.pluginConfig.DOCS_MAX_FILES;
  const lib = deps.assetLibrary;
  return {
    id: 'docs',
    order: 30,
    async exportSections({ sections }) {
      const folder = docsFolderOf(sections.website);
      if (folder === undefined) return {};
      const { files, truncated } = await lib.folderFiles(folder, maxFiles);
      return { docs: { sourceFolder: folder, files: files.map((f) => f.path), ...(truncated ? { truncated } : {}) } };
    },
    async plan(manifest) {
      const plan: Plan = { counts: {}, actions: [], warnings: [], blocking: [] };
      const folder = docsFolderOf(manifest.website);
      if (folder === undefined) return plan;
      const prefix = folder ? `${folder}/` : '';
      const carried = new Map<string, number>();
      for (const a of (manifest.assets as Array<{ path?: unknown; size?: unknown }> | undefined) ?? [])
        if (typeof a.path === 'string' && a.path.startsWith(prefix))
          carried.set(a.path.slice(prefix.length), typeof a.size === 'number' ? a.size : -1);
      plan.counts.docsFiles = carried.size;
      if (!carried.size) plan.warnings.push(`The bundle carries no file of the documentation folder ${folder || '/'}`);
      const free = async (candidate: string) => {
        const { files } = await lib.folderFiles(candidate, maxFiles);
        if (!files.length) return true;
        // The very same files (path and size): the import reuses them, the folder stays.
        const prefixHere = candidate ? `${candidate}/` : '';
        return (
          candidate === folder &&
          files.length === carried.size &&
          files.every((f) => carried.get(f.path.slice(prefixHere.length)) === f.size)
        );
      };
      // The library's root holds every file: a site rooted there is imported in place.
      let target = folder;
      if (folder && !(await free(folder))) {
        target = '';
        for (let i = 1; i <= MAX_TRIES && !target; i++) {
          const candidate = `${folder}-imported${i > 1 ? `-${i}` : ''}`;
          if (await free(candidate)) target = candidate;
        }
        if (!target) {
          const action = {
            kind: 'docs',
            name: folder,
            action: 'conflict' as const,
            reason: `the folder ${folder} and ${MAX_TRIES} alternatives hold other files; free one of them`,
          };
          plan.actions.push(action);
          plan.blocking.push(action);
          target = folder;
        } else
          plan.warnings.push(`The folder ${folder} holds other files: the documentation is imported into ${target}`);
      }
      return { ...plan, docs: { sourceFolder: folder, targetFolder: target } };
    },
    // The files are stored by the bundle's asset plan and the settings rewritten by the website's part.
    async apply() {},
  };
}
