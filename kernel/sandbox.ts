import fp from 'fastify-plugin';
import type { onRequestHookHandler } from 'fastify';
import { HttpError } from './errors.ts';
import type { App } from './plugin.ts';

/**
 * The public sandbox profile (`SANDBOX=1`): a demo installation in which nothing leaves the machine.
 * It is declared, never tested for inside a feature:
 * - a route declares `config.sandbox: 'block'` when it must not answer under the profile (settings of
 *   security, single sign-on, data subject requests; anything that sends mail, calls AI, imports from
 *   elsewhere or pushes to a CDN); the kernel answers it 403 `SANDBOX_BLOCKED`;
 * - a plugin declares `sandbox.config` in its manifest: the values its config slice takes under the
 *   profile (a number is a ceiling, `null` unsets the variable, which switches off what it configures),
 *   and `sandbox.blockedPaths`: paths of its routes blocked whole;
 * - every outbound connection asks the kernel's `outboundGuard` first, which refuses all of them.
 */
export type RouteSandboxRule = 'block';

/** Whether `url` is one of `paths`, or below one. */
const under = (paths: readonly string[], url: string) => paths.some((p) => url === p || url.startsWith(`${p}/`));

/** What a plugin manifest declares about the profile (`sandbox` in `definePlugin`). */
export interface PluginSandboxRules {
  /**
   * Values of the plugin's config slice under the profile: a number caps the configured value (the
   * smaller wins; a configured 0, "no limit", gets the cap), `null` unsets the variable, anything else
   * replaces it.
   */
  config?: Record<string, number | string | boolean | null>;
  /**
   * Paths of its routes the profile blocks with everything below them, whether or not each route
   * declares it: a route added there later that forgets `config.sandbox` fails closed (the
   * specification's Deployment model, point 6, names security, single sign-on and data subjects).
   */
  blockedPaths?: readonly string[];
}

/** The 403 of a route the profile blocks: a clear code, and the route's existence is no secret. */
export function sandboxBlocked(method: string, url: string): HttpError {
  return new HttpError(403, 'SANDBOX_BLOCKED', `${method} ${url} is not available in the sandbox profile (SANDBOX=1)`);
}

/** Thrown by `outboundGuard.assertAllowed` under the profile; mapped to 403 OUTBOUND_REFUSED by its caller. */
export class SandboxOutboundError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
}

/**
 * The kernel's one outbound policy switch (container name `outboundGuard`). Every module that opens a
 * connection to the outside (the gateway's connector, a mail transport, a provider client) calls
 * `assertAllowed` right before connecting; under the sandbox profile it refuses every host.
 */
export class OutboundGuard {
  constructor(readonly sandbox: boolean) {}

  /** Why a connection to `host` must not be opened, or undefined when it may. */
  refusal(host: string): string | undefined {
    return this.sandbox ? `the sandbox profile opens no outbound connection (${host})` : undefined;
  }

  /** Throws a SandboxOutboundError when a connection to `host` must not be opened. */
  assertAllowed(host: string): void {
    const reason = this.refusal(host);
    if (reason !== undefined) throw new SandboxOutboundError(`Outbound call refused: ${reason}`);
  }
}

/**
 * Applies the profile's values to a plugin's parsed config slice (see `PluginSandboxRules.config`).
 * Runs once at start, after the slice was validated.
 */
export function applySandboxConfig(
  slice: Record<string, unknown>,
  rules: PluginSandboxRules | undefined,
): Record<string, unknown> {
  if (!rules?.config) return slice;
  const out = { ...slice };
  for (const [name, value] of Object.entries(rules.config)) {
    if (value === null) delete out[name];
    // A configured 0 is this project's "no limit", so the profile's ceiling takes its place.
    else if (typeof value === 'number' && typeof out[name] === 'number' && out[name] !== 0)
      out[name] = Math.min(out[name], value);
    else out[name] = value;
  }
  return out;
}

/**
 * Enforces `config.sandbox` of every route under the profile: a blocked route gets an onRequest hook
 * of its own, after the session check (so an anonymous caller still gets 401), before the route's own
 * hooks (a service token check) and before its body is read. Without the profile nothing is added,
 * so no route pays for it.
 */
export const sandboxRoutes = fp<{ sandbox: boolean; blockedPaths: readonly string[] }>(
  async (instance, opts) => {
    const app = instance as unknown as App;
    app.addHook('onRoute', (route) => {
      const rule = (route.config as { sandbox?: unknown } | undefined)?.sandbox;
      if (rule !== undefined && rule !== 'block')
        throw new Error(`route ${route.method} ${route.url}: config.sandbox must be 'block'`);
      if (!opts.sandbox || (rule === undefined && !under(opts.blockedPaths, route.url))) return;
      const method = Array.isArray(route.method) ? route.method.join(',') : String(route.method);
      const block: onRequestHookHandler = (_request, _reply, done) => done(sandboxBlocked(method, route.url));
      // First of the route's own hooks: a public route's token check (a service route) must not answer
      // 401 where the profile answers 403; the session check is the context's, and still runs before.
      const own = route.onRequest;
      route.onRequest = own === undefined ? [block] : [block, ...(Array.isArray(own) ? own : [own])];
    });
  },
  { name: 'kernel-sandbox-routes' },
);
