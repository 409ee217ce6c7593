import type { AdminScreen, AdminScreens } from './sdk/screens.ts';

/** Refuses a set of screens with duplicate ids or paths, or one without a permission. */
export function checkScreens(all: readonly AdminScreens[]): AdminScreen[] {
  const ids = new Set<string>();
  const paths = new Set<string>();
  const screens: AdminScreen[] = [];
  for (const { plugin, screens: own } of all) {
    for (const screen of own) {
      if (ids.has(screen.id)) throw new Error(`admin screens: id "${screen.id}" of ${plugin} is taken`);
      if (paths.has(screen.path)) throw new Error(`admin screens: path "${screen.path}" of ${plugin} is taken`);
      const keyed = screen.permission !== undefined && screen.permission.length > 0;
      if (keyed === (screen.session === true))
        throw new Error(`admin screens: "${screen.id}" of ${plugin} needs exactly one of permission and session`);
      ids.add(screen.id);
      paths.add(screen.path);
      screens.push(screen);
    }
  }
  return screens;
}
