import { checkScreens } from './screens-check';
import { type AdminScreen, type AdminScreens, type AdminWidget, mayOpen } from './sdk/screens';

/**
 * Every plugin's screens, found at build time: each `plugins/<id>/admin/index.ts` default-exports
 * `defineAdminScreens(...)`. The manifests are small and read eagerly; each screen's component is a
 * dynamic import, its own chunk.
 */
const manifests = import.meta.glob<AdminScreens>('../../../*/admin/index.ts', { eager: true, import: 'default' });

export const SCREENS: readonly AdminScreen[] = checkScreens(Object.values(manifests));

/** Every plugin's home widgets, by order. */
export const WIDGETS: readonly AdminWidget[] = Object.values(manifests)
  .flatMap((m) => m.widgets ?? [])
  .sort((a, b) => a.order - b.order);

/** The menu a user sees: the screens with a menu entry their keys open, by group and order. */
export function menuFor(permissions: readonly string[]) {
  const groups = new Map<string, AdminScreen[]>();
  for (const s of SCREENS) {
    if (!s.menu || !mayOpen(s, permissions)) continue;
    groups.set(s.menu.group, [...(groups.get(s.menu.group) ?? []), s]);
  }
  return [...groups.entries()]
    .map(([group, screens]) => ({
      group,
      screens: screens.sort((a, b) => (a.menu?.order ?? 0) - (b.menu?.order ?? 0)),
      order: Math.min(...screens.map((s) => s.menu?.order ?? 0)),
    }))
    .sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group) || a.order - b.order);
}

/** Groups in menu order; a group not listed comes first in the order of its screens. */
const GROUP_ORDER = ['Content', 'Data', 'Assets', 'Integrations', 'Administration', 'System', 'Account'];
