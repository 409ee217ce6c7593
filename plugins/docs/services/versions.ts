import { filterNav } from './nav.ts';
import type { NavItem } from './model.ts';

/** The name of the folder root's own documents when the site also has `vN/` folders. */
export const ROOT_VERSION = 'latest';
const VERSION_FOLDER = /^v(\d{1,9})$/;

/** A version of a documentation site: a top-level `vN/` folder, or the folder root's own documents. */
export interface SiteVersion {
  name: string;
  /** The version's start page (`vN`, or `''` for the root). */
  path: string;
  default: boolean;
}

/** The versions one scope of a site shows, and which version a document path is in. */
export interface Versions {
  /** Newest first: the root (when it has documents of its own), then `vN` by N, highest first. */
  list: SiteVersion[];
  /** The default version's name (undefined: the site has no versions). */
  defaultName?: string;
}

const folderOf = (path: string) => path.split('/', 1)[0];

/**
 * The versions of the documents a scope holds: each top-level `vN/` folder with a document is one;
 * the root's own documents (other than the start page) are one more, `latest`, and then the default.
 * Without root documents the highest `vN` is the default. No `vN/` folder: no versions.
 */
export function versionsOf(paths: Iterable<string>): Versions {
  const numbers = new Map<string, number>();
  let rootDocuments = false;
  for (const path of paths) {
    const folder = folderOf(path);
    const match = VERSION_FOLDER.exec(folder);
    if (match) numbers.set(folder, Number(match[1]));
    else if (path !== '') rootDocuments = true;
  }
  if (!numbers.size) return { list: [] };
  const folders = [...numbers].sort((a, b) => b[1] - a[1]).map(([name]) => name);
  const defaultName = rootDocuments ? ROOT_VERSION : folders[0];
  const list = [...(rootDocuments ? [ROOT_VERSION] : []), ...folders].map((name) => ({
    name,
    path: name === ROOT_VERSION ? '' : name,
    default: name === defaultName,
  }));
  return { list, defaultName };
}

/** The version a document path is in (undefined when the site has no versions). */
export function versionOfPath(versions: Versions, path: string): string | undefined {
  if (!versions.defaultName) return undefined;
  if (path === '') return versions.defaultName;
  const folder = folderOf(path);
  return versions.list.some((v) => v.name === folder && v.path !== '') ? folder : ROOT_VERSION;
}

/** A path's place inside its version: `v2/guide/intro` → `guide/intro`; root paths are their own. */
export function pathInVersion(versions: Versions, path: string): string {
  const version = versionOfPath(versions, path);
  if (version === undefined || version === ROOT_VERSION || path === '') return path;
  return path === version ? '' : path.slice(version.length + 1);
}

/** `inVersion` of version `name`: `guide` in `v1` → `v1/guide`. */
export function pathOfVersion(name: string, inVersion: string): string {
  if (name === ROOT_VERSION) return inVersion;
  return inVersion ? `${name}/${inVersion}` : name;
}

/**
 * The navigation of one version: the entries whose documents are in it; a version folder's own group
 * is unwrapped, so its sidebar starts at its documents (its start page first, when it has one).
 */
export function versionNav(nav: readonly NavItem[], versions: Versions, name: string): NavItem[] {
  const kept = filterNav(
    nav,
    (path) => path !== '' && versionOfPath(versions, path) === name,
    (item) => (item.path === undefined ? item.title : item.path.split('/').pop() || item.title),
  );
  if (name === ROOT_VERSION || kept.length !== 1) return kept;
  const [only] = kept;
  if (only.path !== undefined && only.path !== name) return kept;
  const children = only.children ?? [];
  return only.path === name ? [{ title: only.title, path: only.path }, ...children] : children;
}
