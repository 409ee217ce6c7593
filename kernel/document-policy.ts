import fp from 'fastify-plugin';
import type { App } from './plugin.ts';

/**
 * The Content-Security-Policy of an HTML document, as directive → source list
 * (`{ 'img-src': "'self' data:" }`; `''` for a directive without value, such as `sandbox`). A route
 * that answers HTML declares its own in `config.documentPolicy`; what it leaves out is filled from
 * {@link FILLED_DIRECTIVES}, and a route that declares none gets {@link STRICT_DOCUMENT_POLICY}.
 */
export type DocumentPolicy = Readonly<Record<string, string>>;

/**
 * Directives every document's policy holds unless it names them itself: nothing loads that the
 * policy does not name, no plugin content, no `<base>` (which would re-point every relative script
 * URL), forms post only here, and no other page may frame it.
 */
const FILLED_DIRECTIVES: DocumentPolicy = {
  'default-src': "'none'",
  'object-src': "'none'",
  'base-uri': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
};

/**
 * The policy of an HTML answer whose route declares none (an error page, a "not built" page): no
 * script at all, its own inline styles and images of this origin.
 */
export const STRICT_DOCUMENT_POLICY: DocumentPolicy = {
  'default-src': "'none'",
  'style-src': "'unsafe-inline'",
  'img-src': "'self' data:",
};

const DIRECTIVE = /^[a-z][a-z-]{0,63}$/;
// A `;` or `,` would end the directive or the policy; CR/LF would end the header.
const SOURCES = /^[^;,\r\n]{0,2000}$/;

/** Why `policy` cannot be sent, or null when it can. */
export function documentPolicyProblem(policy: unknown): string | null {
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) return 'must be an object';
  for (const [name, sources] of Object.entries(policy)) {
    if (!DIRECTIVE.test(name)) return `"${name.slice(0, 64)}" is not a directive name`;
    if (typeof sources !== 'string' || !SOURCES.test(sources))
      return `${name}: the sources must be one line without ";" or ","`;
  }
  return null;
}

/** X-Frame-Options for browsers that do not read `frame-ancestors`: only the two values it can say. */
function frameOptions(frameAncestors: string): string | undefined {
  if (frameAncestors === "'none'") return 'DENY';
  if (frameAncestors === "'self'") return 'SAMEORIGIN';
  return undefined;
}

/**
 * The headers of an HTML document under `policy` (the strict policy when none): its
 * Content-Security-Policy with the filled directives, X-Frame-Options matching `frame-ancestors`,
 * and `X-Content-Type-Options: nosniff`. Also what a proxy serving a build folder sends
 * (edge/generate.ts), so both deployments send the same bytes.
 */
export function documentHeaders(policy: DocumentPolicy = STRICT_DOCUMENT_POLICY): Record<string, string> {
  const problem = documentPolicyProblem(policy);
  if (problem) throw new Error(`document policy: ${problem}`);
  const full: Record<string, string> = { ...policy };
  for (const [name, sources] of Object.entries(FILLED_DIRECTIVES)) if (!Object.hasOwn(full, name)) full[name] = sources;
  const headers: Record<string, string> = {
    'content-security-policy': Object.entries(full)
      .map(([name, sources]) => (sources ? `${name} ${sources}` : name))
      .join('; '),
  };
  const framing = frameOptions(full['frame-ancestors']);
  if (framing) headers['x-frame-options'] = framing;
  headers['x-content-type-options'] = 'nosniff';
  return headers;
}

const DOCUMENT_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

/**
 * Every answer: `X-Content-Type-Options: nosniff` (no answer of this origin is ever read as a script
 * or a style it was not sent as, which is what `script-src 'self'` relies on). Every HTML answer,
 * whatever route or handler produced it: the document headers of its route's `config.documentPolicy`,
 * unless the answer already carries a Content-Security-Policy (a relayed page keeps the one its own
 * route gave it). A route's policy is checked when the route is added, so a bad one stops start-up.
 */
export const documentPolicies = fp<{ closing?: () => boolean }>(
  async (instance, { closing }) => {
    const app = instance as unknown as App;
    const compiled = new WeakMap<DocumentPolicy, Record<string, string>>();
    const strict = documentHeaders();
    app.addHook('onRoute', (route) => {
      const policy = (route.config as { documentPolicy?: unknown } | undefined)?.documentPolicy;
      if (policy === undefined) return;
      const problem = documentPolicyProblem(policy);
      if (problem) throw new Error(`route ${String(route.method)} ${route.url}: config.documentPolicy ${problem}`);
      compiled.set(policy as DocumentPolicy, documentHeaders(policy as DocumentPolicy));
    });
    // A synchronous hook: it waits for nothing, and runs on every answer. It also closes the connection
    // of an answer sent while the process shuts down (`closing`), one hook for both: each hook every
    // answer passes costs its own step.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (closing?.()) reply.header('connection', 'close');
      const type = reply.getHeader('content-type');
      if (typeof type === 'string' && DOCUMENT_TYPE.test(type) && !reply.hasHeader('content-security-policy')) {
        const policy = request.routeConfig?.documentPolicy;
        reply.headers(policy ? (compiled.get(policy) ?? documentHeaders(policy)) : strict);
      } else if (!reply.hasHeader('x-content-type-options')) reply.header('x-content-type-options', 'nosniff');
      done(null, payload);
    });
  },
  { name: 'kernel-document-policies' },
);
