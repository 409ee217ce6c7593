import type { Actor } from './actor.ts';

/** A permission key a plugin contributes. */
export interface PermissionDefinition {
  key: string;
  description: string;
  /**
   * Broader keys that also grant this one: a function-level key such as `pages:edit` is granted by
   * `objects:write` (the spec's "objects:write overrides function-level keys").
   */
  grantedBy?: string[];
}

/** Every key the kernel and the loaded plugins declare, and the check routes and services use. */
export class PermissionRegistry {
  private readonly definitions = new Map<string, PermissionDefinition & { owner: string }>();

  register(owner: string, definitions: readonly PermissionDefinition[]): void {
    for (const def of definitions) {
      const existing = this.definitions.get(def.key);
      if (existing && existing.owner !== owner) {
        throw new Error(`permission key "${def.key}" is declared by both "${existing.owner}" and "${owner}"`);
      }
      this.definitions.set(def.key, { ...def, owner });
    }
  }

  has(key: string): boolean {
    return this.definitions.has(key);
  }

  list(): Array<PermissionDefinition & { owner: string }> {
    return [...this.definitions.values()].sort((a, b) => a.key.localeCompare(b.key));
  }

  /** True when the actor holds the key, a key that grants it, or every key ('*'). */
  allows(actor: Actor, key: string): boolean {
    if (actor.type === 'system') return true;
    if (actor.type !== 'user') return false;
    const held = actor.permissions;
    if (held.has('*') || held.has(key)) return true;
    const grantedBy = this.definitions.get(key)?.grantedBy;
    return grantedBy ? grantedBy.some((k) => held.has(k)) : false;
  }

  /** The keys an actor effectively holds ('*' expanded), for `GET /auth/me`. */
  effective(held: ReadonlySet<string>): string[] {
    const out = new Set<string>();
    if (held.has('*')) for (const def of this.definitions.values()) out.add(def.key);
    for (const def of this.definitions.values()) {
      if (held.has(def.key) || def.grantedBy?.some((k) => held.has(k))) out.add(def.key);
    }
    for (const key of held) if (key !== '*') out.add(key);
    return [...out].sort();
  }
}

/** The keys the kernel itself declares: the spec's broad keys that several plugins share. */
export const KERNEL_PERMISSIONS: PermissionDefinition[] = [
  { key: 'objects:read', description: 'Read content and structured data' },
  { key: 'objects:write', description: 'Create and change content; grants every function-level key' },
  { key: 'objects:publish', description: 'Publish content (while ENFORCE_PUBLISH_PERMISSION is on)' },
  { key: 'settings:manage', description: 'Change workspace settings' },
  { key: 'users:manage', description: 'Manage users and roles' },
  { key: 'audit:read', description: 'Read the audit log' },
  {
    key: 'gateway:manage',
    description: 'Manage gateway endpoints, routes and API clients (gateway and client-api plugins)',
  },
];
