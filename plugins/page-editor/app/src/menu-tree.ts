import type { ApiAnswer } from '../../../admin-ui/app/src/sdk/index.ts';

/** A menu entry as the API answers it (`/cms-one/website-paths`). */
export type MenuEntry = ApiAnswer<'/cms-one/website-paths', 'get'>[number];

/** One row of the menu panel: an entry with its depth, in menu order (depth first). */
export interface MenuRow {
  entry: MenuEntry;
  depth: number;
}

/** Entries by parent, each level in menu order (position, then label, as the site renders them). */
export function byParent(entries: MenuEntry[]): Map<string | null, MenuEntry[]> {
  const map = new Map<string | null, MenuEntry[]>();
  for (const e of entries) map.set(e.parentId, [...(map.get(e.parentId) ?? []), e]);
  for (const list of map.values()) list.sort((a, b) => a.position - b.position || a.label.localeCompare(b.label));
  return map;
}

/** The entries as rows in menu order; an entry whose parent is missing is left out with its subtree. */
export function menuRows(entries: MenuEntry[]): MenuRow[] {
  const map = byParent(entries);
  const rows: MenuRow[] = [];
  const stack: MenuRow[] = [...(map.get(null) ?? [])].reverse().map((entry) => ({ entry, depth: 0 }));
  const seen = new Set<string>();
  while (stack.length) {
    const row = stack.pop()!;
    if (seen.has(row.entry.id)) continue;
    seen.add(row.entry.id);
    rows.push(row);
    const below = map.get(row.entry.id) ?? [];
    for (let i = below.length - 1; i >= 0; i--) stack.push({ entry: below[i], depth: row.depth + 1 });
  }
  return rows;
}

/** Ids of every entry below `id`. */
export function descendantIds(entries: MenuEntry[], id: string): Set<string> {
  const map = byParent(entries);
  const out = new Set<string>();
  const stack = [id];
  while (stack.length) {
    for (const child of map.get(stack.pop()!) ?? []) {
      if (out.has(child.id)) continue;
      out.add(child.id);
      stack.push(child.id);
    }
  }
  return out;
}

/** A change to store: the entry's new parent and position. */
export interface Placement {
  id: string;
  parentId: string | null;
  position: number;
}

/**
 * The writes that put `id` beside `target` (as the outline does: after it when moving down the
 * list, before it when moving up), renumbering the new siblings 0, 10, 20…; only entries whose
 * parent or position changes are written. Null when the move is impossible (onto itself or below it).
 */
export function placeBeside(entries: MenuEntry[], id: string, target: string): Placement[] | null {
  if (id === target || descendantIds(entries, id).has(target)) return null;
  const moving = entries.find((e) => e.id === id);
  const over = entries.find((e) => e.id === target);
  if (!moving || !over) return null;
  const rows = menuRows(entries).map((r) => r.entry.id);
  const down = rows.indexOf(id) < rows.indexOf(target);
  const siblings = (byParent(entries).get(over.parentId) ?? []).filter((e) => e.id !== id);
  const at = siblings.findIndex((e) => e.id === target) + (down ? 1 : 0);
  siblings.splice(at, 0, moving);
  return siblings.flatMap((e, i) =>
    e.parentId === over.parentId && e.position === i * 10
      ? []
      : [{ id: e.id, parentId: over.parentId, position: i * 10 }],
  );
}

/** The position after the last entry below `parentId` (new entries go to the end). */
export function nextPosition(entries: MenuEntry[], parentId: string | null): number {
  const below = entries.filter((e) => e.parentId === parentId);
  return below.length ? Math.max(...below.map((e) => e.position)) + 10 : 0;
}
