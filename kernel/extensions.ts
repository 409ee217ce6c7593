import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const INDEX_FILES = ['index.ts', 'index.js', 'index.mjs'];

/** The index file of a plugin folder, or undefined when the folder holds none. */
export function pluginIndexIn(folder: string): string | undefined {
  return INDEX_FILES.map((f) => path.join(folder, f)).find(existsSync);
}

/**
 * Where extensions come from: the project itself and every folder named in CMS_PLUGIN_PATH (separated
 * by the platform's path delimiter, `:` on Linux). An entry is either a folder of plugin folders (like
 * `plugins/`) or one plugin folder itself; either may carry data folders such as `presets/`. So an
 * integrator adds plugins and presets without editing this repository.
 */
export class ExtensionFolders {
  /** Absolute paths of the CMS_PLUGIN_PATH entries, in the order given. */
  readonly externalRoots: readonly string[];

  constructor(
    private readonly projectRoot: string,
    pluginPath: string | undefined,
  ) {
    this.externalRoots = (pluginPath ?? '')
      .split(path.delimiter)
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => path.resolve(s));
  }

  /** Every plugin folder: `plugins/<id>/` of the project, then each external root's, in order. */
  pluginFolders(): string[] {
    const folders: string[] = [];
    const childrenOf = (dir: string) =>
      readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
        .map((e) => path.join(dir, e.name))
        .sort()
        .filter((f) => pluginIndexIn(f) !== undefined);
    const projectPlugins = path.join(this.projectRoot, 'plugins');
    if (existsSync(projectPlugins)) folders.push(...childrenOf(projectPlugins));
    for (const root of this.externalRoots) {
      if (!existsSync(root) || !statSync(root).isDirectory())
        throw new Error(`CMS_PLUGIN_PATH names "${root}", which is not a folder`);
      if (pluginIndexIn(root)) folders.push(root);
      else if (existsSync(path.join(root, 'plugins'))) folders.push(...childrenOf(path.join(root, 'plugins')));
      else folders.push(...childrenOf(root));
    }
    return folders;
  }

  /**
   * The data folders named `name` (e.g. `presets`): the project's own first, then each external root's
   * and each external plugin folder's. Only folders that exist.
   */
  folders(name: string): string[] {
    const candidates = [path.join(this.projectRoot, name)];
    for (const root of this.externalRoots) {
      candidates.push(path.join(root, name));
      if (!pluginIndexIn(root) && existsSync(root)) {
        for (const e of readdirSync(root, { withFileTypes: true }))
          if (e.isDirectory()) candidates.push(path.join(root, e.name, name));
      }
    }
    return [...new Set(candidates)].filter((f) => existsSync(f) && statSync(f).isDirectory());
  }

  /** Files ending in `extension` in every `name` folder, as absolute paths, each folder sorted by name. */
  files(name: string, extension: string): string[] {
    return this.folders(name).flatMap((folder) =>
      readdirSync(folder)
        .filter((f) => f.endsWith(extension) && !f.startsWith('.'))
        .sort()
        .map((f) => path.join(folder, f)),
    );
  }
}
