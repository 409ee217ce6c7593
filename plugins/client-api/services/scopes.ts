import { badRequest } from '../../../kernel/index.ts';

/**
 * Scope grammar (ours where the spec only names the patterns; README "Scopes"):
 *
 *   data:read:<Class>                       read published objects of the class (`*`: every class)
 *   data:write:<Class>                      create/patch drafts of the class (`*`: every class); key clients only
 *   automation:run:<endpoint>:<route>       POST /client/v1/automations/<endpoint>/... for that route (`*`: any route)
 *   gateway:call:<endpoint>                 any route of the endpoint through /client/v1/gateway/<endpoint>/...
 *   gateway:call:<endpoint>:<route>         one route of the endpoint
 *
 * `<Class>` is a class name (a letter, then letters, digits or `_`, at most 63) or `*`. `<endpoint>` is
 * an endpoint name or id, `<route>` a route id: letters, digits, `_ . ~ -`, 1-100 characters. Names are
 * compared exactly (case-sensitive).
 */
export type Scope =
  | { kind: 'data:read' | 'data:write'; className: string }
  | { kind: 'automation:run' | 'gateway:call'; endpoint: string; route: string };

const TOKEN = /^[A-Za-z0-9_.~-]{1,100}$/;
// A class name as the data plugin allows it (a letter, then letters, digits or `_`), or `*`.
const CLASS = /^(\*|[A-Za-z][A-Za-z0-9_]{0,62})$/;
export const MAX_SCOPES = 200;

/** Scopes a `jwt` client may not hold: tokens live in browsers and apps, where they can be lifted. */
const KEY_ONLY = new Set<Scope['kind']>(['data:write']);

export function parseScope(text: string): Scope | undefined {
  for (const kind of ['data:read', 'data:write'] as const) {
    if (text.startsWith(`${kind}:`)) {
      const className = text.slice(kind.length + 1);
      return CLASS.test(className) ? { kind, className } : undefined;
    }
  }
  for (const kind of ['automation:run', 'gateway:call'] as const) {
    if (!text.startsWith(`${kind}:`)) continue;
    const parts = text.slice(kind.length + 1).split(':');
    const [endpoint, route = kind === 'gateway:call' ? '*' : undefined] = parts;
    if (parts.length > 2 || route === undefined || !TOKEN.test(endpoint)) return undefined;
    if (route !== '*' && !TOKEN.test(route)) return undefined;
    return { kind, endpoint, route };
  }
  return undefined;
}

/** Checks every scope for a client of this kind; 400 names the first bad one (`scopes.<i>`). */
export function assertScopes(scopes: readonly string[], authMode: 'key' | 'jwt'): void {
  scopes.forEach((text, i) => {
    const scope = parseScope(text);
    if (!scope)
      throw badRequest(
        `Scope "${text}" does not follow the grammar (data:read:<Class>, data:write:<Class>, automation:run:<endpoint>:<route>, gateway:call:<endpoint>[:<route>])`,
        `scopes.${i}`,
        'INVALID_SCOPE',
      );
    if (authMode === 'jwt' && KEY_ONLY.has(scope.kind))
      throw badRequest(`Scope "${text}" is for key clients only`, `scopes.${i}`, 'INVALID_SCOPE');
  });
}

/** A client's scopes, parsed once, with the checks the routes ask. */
export class ScopeSet {
  private readonly scopes: Scope[];

  constructor(texts: readonly string[]) {
    this.scopes = texts.map(parseScope).filter((s): s is Scope => s !== undefined);
  }

  get size(): number {
    return this.scopes.length;
  }

  mayData(kind: 'data:read' | 'data:write', className: string): boolean {
    return this.scopes.some((s) => s.kind === kind && (s.className === '*' || s.className === className));
  }

  /** `endpoint` is the route's endpoint id and name: a scope may name either. */
  mayRoute(kind: 'automation:run' | 'gateway:call', endpoint: { id: string; name: string }, routeId: string): boolean {
    return this.scopes.some(
      (s) =>
        s.kind === kind &&
        (s.endpoint === endpoint.id || s.endpoint === endpoint.name) &&
        (s.route === '*' || s.route === routeId),
    );
  }

  /** True when the client holds any scope of this kind (else a gateway call is not even looked up). */
  hasKind(kind: Scope['kind']): boolean {
    return this.scopes.some((s) => s.kind === kind);
  }
}

/**
 * Refuses a data scope whose class is spelled in another case than an existing class (400 naming
 * both, `scopes.<i>`): names are case-sensitive, so `data:read:Product` for the class `product` would
 * read nothing, silently. A name no class has in any case is kept: a client may be set up before its
 * classes are imported (a bundle, a migration), and reads of it answer 404 until the class exists.
 * `already` are scopes the client holds, which stay as they are.
 */
export async function assertClassSpelling(
  scopes: readonly string[],
  classNames: () => Promise<string[]>,
  already: readonly string[] = [],
): Promise<void> {
  let names: string[] | undefined;
  for (const [i, text] of scopes.entries()) {
    const scope = parseScope(text);
    if (!scope || (scope.kind !== 'data:read' && scope.kind !== 'data:write')) continue;
    if (scope.className === '*' || already.includes(text)) continue;
    names ??= await classNames();
    if (names.includes(scope.className)) continue;
    const meant = names.find((name) => name.toLowerCase() === scope.className.toLowerCase());
    if (meant)
      throw badRequest(
        `Scope "${text}" names the class "${scope.className}", which does not exist; class names are case-sensitive: did you mean "${scope.kind}:${meant}"?`,
        `scopes.${i}`,
        'UNKNOWN_CLASS',
      );
  }
}
