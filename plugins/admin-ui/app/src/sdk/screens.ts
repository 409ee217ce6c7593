import type { ComponentType } from 'react';

/** A menu entry of a screen: where it appears in the dashboard's navigation. */
export interface AdminMenuEntry {
  label: string;
  /** Heading the entry is listed under (`Content`, `Data`, `Integrations`, `Administration`). */
  group: string;
  /** Position within the group, lowest first. */
  order: number;
  /** An icon component (`@tabler/icons-react`). */
  icon?: ComponentType<{ size?: number | string; stroke?: number }>;
}

/** One screen a plugin adds to the dashboard. */
export interface AdminScreen {
  /** Unique across the dashboard, `<plugin>.<screen>` by convention. */
  id: string;
  /**
   * Route under `/admin/`, react-router notation: `users`, `users/:id`. The screen gets it, and its
   * children, whole.
   */
  path: string;
  /** Shown in the browser title and the command palette. */
  label: string;
  /**
   * The key the user must hold to see the screen in the menu and open it (any one of a list), or
   * `session: true` for a screen every signed-in user may open (their own account). Exactly one.
   */
  permission?: string | readonly string[];
  session?: true;
  /** Listed in the menu; a screen without it is reached by links (a record's page). */
  menu?: AdminMenuEntry;
  /** Always a dynamic import, so each screen is its own chunk: `() => import('./UserList.tsx')`. */
  load: () => Promise<{ default: ComponentType }>;
}

/** A card a plugin adds to the dashboard's home (counts, recent activity), for users its key opens. */
export interface AdminWidget {
  id: string;
  permission?: string | readonly string[];
  session?: true;
  /** Position on the home screen, lowest first. */
  order: number;
  load: () => Promise<{ default: ComponentType }>;
}

/** What a plugin's `admin/index.ts` default-exports. */
export interface AdminScreens {
  plugin: string;
  screens: readonly AdminScreen[];
  widgets?: readonly AdminWidget[];
}

/** The manifest of a plugin's screens (`plugins/<id>/admin/index.ts`) and its home widgets. */
export function defineAdminScreens(
  plugin: string,
  screens: readonly AdminScreen[],
  widgets: readonly AdminWidget[] = [],
): AdminScreens {
  return { plugin, screens, widgets };
}

/** True when a user holding `permissions` may open `screen` (any one of its keys). */
export function mayOpen(screen: Pick<AdminScreen, 'permission' | 'session'>, permissions: readonly string[]): boolean {
  if (screen.session) return true;
  const keys = typeof screen.permission === 'string' ? [screen.permission] : (screen.permission ?? []);
  return keys.some((k) => permissions.includes(k));
}
