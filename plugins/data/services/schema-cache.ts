import type { Db } from '../../../kernel/index.ts';
import type { ClassRow, FieldDef } from '../model.ts';
import { findClassById, findClassByName } from '../store/class-store.ts';
import { listComponents } from '../store/component-store.ts';

/**
 * In-memory copies of class and component definitions for the read paths (public API, queries) and
 * attribute validation, so a read costs one SQL round trip. Every class or component write calls
 * `invalidate()` in its process and, through the change notices (services/read-cache-notices.ts), in
 * every other process on the database (the gateway), when it commits.
 * Object writes still read their class row from the database under a share lock.
 */
export class SchemaCache {
  private byName = new Map<string, Promise<ClassRow | null>>();
  private byId = new Map<string, Promise<ClassRow | null>>();
  private components: Promise<Map<string, FieldDef[]>> | null = null;

  constructor(private readonly db: Db) {}

  classByName(name: string): Promise<ClassRow | null> {
    let hit = this.byName.get(name);
    if (!hit) {
      hit = findClassByName(this.db, name);
      this.byName.set(name, hit);
      // Misses are not kept: public callers choose the name, and the map must not grow with them.
      hit.then(
        (found) => found || this.byName.delete(name),
        () => this.byName.delete(name),
      );
    }
    return hit;
  }

  classById(id: string): Promise<ClassRow | null> {
    let hit = this.byId.get(id);
    if (!hit) {
      hit = findClassById(this.db, id);
      this.byId.set(id, hit);
      hit.then(
        (found) => found || this.byId.delete(id),
        () => this.byId.delete(id),
      );
    }
    return hit;
  }

  componentFields(): Promise<Map<string, FieldDef[]>> {
    this.components ??= listComponents(this.db).then((rows) => new Map(rows.map((r) => [r.name, r.fields])));
    this.components.catch(() => (this.components = null));
    return this.components;
  }

  invalidate(): void {
    this.byName.clear();
    this.byId.clear();
    this.components = null;
  }
}
