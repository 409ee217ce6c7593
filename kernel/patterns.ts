import { RE2JS } from 're2js';

/**
 * A regular expression a user supplied (a field rule, a filter), compiled for RE2 (`re2js`): matching
 * time grows linearly with the input whatever the pattern, so no pattern can freeze the process the
 * way `^(a+)+$` freezes a backtracking engine. `test` searches like `RegExp.prototype.test`
 * (unanchored; anchor with `^` and `$`).
 */
export interface UserPattern {
  readonly source: string;
  test(text: string): boolean;
}

/** The pattern does not compile on the linear-time engine; `message` says why. */
export class UserPatternError extends Error {}

/** Compiled patterns kept; the oldest is dropped beyond this, so callers cannot grow the cache without bound. */
export const USER_PATTERN_CACHE_SIZE = 500;

// A memo of pure values (source text -> compiled program), not state: safe to share in the process.
const compiled = new Map<string, UserPattern>();

/**
 * Compiles `source` in RE2 syntax (as JavaScript's, without backreferences and lookaround; `\uXXXX`
 * and `\u{X}` are accepted as in JavaScript), once per distinct source. Throws UserPatternError with
 * the engine's reason when it does not compile; callers refuse such a pattern when it is defined.
 */
export function compileUserPattern(source: string): UserPattern {
  const hit = compiled.get(source);
  if (hit) return hit;
  let program: RE2JS;
  try {
    program = RE2JS.compile(withRe2Escapes(source));
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    throw new UserPatternError(`${reason} (the linear-time engine has no lookaround or backreferences)`);
  }
  const pattern: UserPattern = { source, test: (text) => program.test(text) };
  if (compiled.size >= USER_PATTERN_CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
  compiled.set(source, pattern);
  return pattern;
}

/** `\uXXXX` and `\u{X}` (JavaScript) become RE2's `\x{X}`; every other escape is kept as written. */
function withRe2Escapes(source: string): string {
  return source.replace(
    /\\(?:u\{([0-9A-Fa-f]{1,6})\}|u([0-9A-Fa-f]{4})|[\s\S])/g,
    (written, braced?: string, four?: string) => ((braced ?? four) ? `\\x{${braced ?? four}}` : written),
  );
}
