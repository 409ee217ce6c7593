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
  /**
   * A broad key several plugins check (`objects:read`): each of them declares it, with the same text
   * and `shared: true`, so any one of them loaded alone still has it. Listed once, with every owner.
   */
  shared?: boolean;
}

/** Every key the kernel and the loaded plugins declare, and the check routes and services use. */
export class PermissionRegistry {
  private readonly definitions = new Map<string, PermissionDefinition & { owner: string }>();

  register(owner: string, definitions: readonly PermissionDefinition[]): void {
    for (const def of definitions) {
      const existing = this.definitions.get(def.key);
      if (existing && existing.owner !== owner) {
        const same =
          existing.shared &&
          def.shared &&
          existing.description === def.description &&
          String(existing.grantedBy ?? []) === String(def.grantedBy ?? []);
        if (!same)
          throw new Error(
            `permission key "${def.key}" is declared by both "${existing.owner}" and "${owner}"` +
              (existing.shared && def.shared ? ' with different text: a shared key reads the same everywhere' : ''),
          );
        this.definitions.set(def.key, { ...existing, owner: `${existing.owner}, ${owner}` });
        continue;
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
