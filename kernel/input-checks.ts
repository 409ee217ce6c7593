import fp from 'fastify-plugin';
import { badRequest } from './errors.ts';

/** How deep a JSON body may nest (objects and arrays); deeper answers 400 TOO_DEEP. */
export const MAX_INPUT_DEPTH = 64;

export interface InputProblem {
  /** Dotted path of the offending value or key ('' for the whole part). */
  path: string;
  code: 'NUL_CHARACTER' | 'INVALID_TEXT' | 'TOO_DEEP' | 'NOT_FINITE';
}

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return true;
  // Only what a JSON or query parser makes: Buffers, streams and class instances pass through untouched.
  // Query parsers build dictionaries on an empty null-prototype object, so those count as plain too.
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return true;
  return Object.getPrototypeOf(proto) === null && Reflect.ownKeys(proto).length === 0;
};

function textProblem(s: string): InputProblem['code'] | null {
  if (s.includes('\u0000')) return 'NUL_CHARACTER';
  // A lone UTF-16 surrogate cannot be encoded as UTF-8: PostgreSQL refuses it in jsonb and text.
  if (!s.isWellFormed()) return 'INVALID_TEXT';
  return null;
}

/**
 * The first value or key in parsed input that the database could not store (NUL, lone surrogate) or
 * that nests deeper than MAX_INPUT_DEPTH, depth first in document order. Iterative, so a hostile
 * body nested a million levels deep costs a loop, not the stack.
 */
export function findInputProblem(value: unknown): InputProblem | null {
  const flat = flatObjectProblem(value);
  if (flat !== undefined) return flat;
  // Each entry: the value, its path, its depth, and the key it sits under (checked when it is reached,
  // so keys and values are reported in document order).
  const stack: Array<[unknown, string, number, string | null]> = [[value, '', 0, null]];
  while (stack.length > 0) {
    const [current, path, depth, key] = stack.pop()!;
    if (key !== null) {
      const code = textProblem(key);
      if (code) return { path, code };
    }
    if (typeof current === 'string') {
      const code = textProblem(current);
      if (code) return { path, code };
      continue;
    }
    // JSON.parse reads 1e400 as Infinity, which no schema keyword refuses.
    if (typeof current === 'number' && !Number.isFinite(current)) return { path, code: 'NOT_FINITE' };
    if (!isContainer(current)) continue;
    if (depth >= MAX_INPUT_DEPTH) return { path, code: 'TOO_DEEP' };
    const keys = Array.isArray(current) ? null : Object.keys(current);
    const length = keys ? keys.length : (current as unknown[]).length;
    for (let i = length - 1; i >= 0; i--) {
      const childKey = keys ? keys[i] : String(i);
      const child = keys ? (current as Record<string, unknown>)[childKey] : (current as unknown[])[i];
      stack.push([child, path ? `${path}.${childKey}` : childKey, depth + 1, keys ? childKey : null]);
    }
  }
  return null;
}

/**
 * The same answer as the full walk for a plain object whose values are all strings, finite numbers,
 * booleans or null (a query string, path parameters, most small bodies), without building the walk's
 * stack and path strings; `undefined` when the object holds anything else and needs the full walk.
 */
function flatObjectProblem(value: unknown): InputProblem | null | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !isContainer(value)) return undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const child = record[key];
    if (
      typeof child === 'object'
        ? child !== null
        : typeof child !== 'string' &&
          typeof child !== 'boolean' &&
          (typeof child !== 'number' || !Number.isFinite(child))
    )
      return undefined;
  }
  // Keys and values in document order, as the walk reports them.
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const code = textProblem(key) ?? (typeof record[key] === 'string' ? textProblem(record[key] as string) : null);
    if (code) return { path: key, code };
  }
  return null;
}

const MESSAGES: Record<InputProblem['code'], (what: string) => string> = {
  NUL_CHARACTER: (what) => `${what} must not contain the NUL character`,
  INVALID_TEXT: (what) => `${what} contains a lone UTF-16 surrogate, which is not valid text`,
  TOO_DEEP: (what) => `${what} nests deeper than ${MAX_INPUT_DEPTH} levels`,
  NOT_FINITE: (what) => `${what} must be a finite number`,
};

/**
 * Refuses, once for every route and naming the field, parsed input the database cannot store or that
 * nests too deep. Registered with fastify-plugin so it reaches every plugin's routes.
 */
export const inputChecks = fp(
  async (app) => {
    // Both hooks are synchronous callbacks: they never wait for anything, and an async hook costs a
    // promise and a microtask per request on every route.
    app.addHook('preValidation', (request, _reply, done) => {
      // Part by part, without building a list per request.
      done(
        partProblem('body', request.body) ??
          partProblem('query', request.query) ??
          partProblem('params', request.params) ??
          undefined,
      );
    });
    // Schema coercion turns "1e400" or "Infinity" in a query into Infinity, which Ajv's integer, minimum
    // and maximum checks let through; no route means a non-finite number.
    app.addHook('preHandler', (request, _reply, done) => {
      done(nonFiniteNumber(request.query) ?? nonFiniteNumber(request.params) ?? undefined);
    });
  },
  { name: 'kernel-input-checks' },
);

/** The 400 for the first problem in one part of the input, or null. */
function partProblem(part: 'body' | 'query' | 'params', value: unknown): Error | null {
  // Nothing parsed (no body, no query string, no path parameter): nothing to walk.
  if (isEmptyInput(value)) return null;
  const problem = findInputProblem(value);
  if (!problem) return null;
  const code = problem.code === 'NOT_FINITE' ? 'VALIDATION_FAILED' : problem.code;
  return badRequest(MESSAGES[problem.code](problem.path || part), problem.path || undefined, code);
}

/** The 400 for a coerced query or path value that is not a finite number, or null. */
function nonFiniteNumber(part: unknown): Error | null {
  if (!part || typeof part !== 'object') return null;
  for (const name in part) {
    if (!Object.hasOwn(part, name)) continue;
    const value = (part as Record<string, unknown>)[name];
    if (typeof value === 'number' && !Number.isFinite(value))
      return badRequest(`${name} must be a finite number`, name);
  }
  return null;
}

/** True for a missing part or a plain object without own keys (what an empty query string parses to). */
function isEmptyInput(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value !== 'object' || Array.isArray(value) || !isContainer(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  // Symbol keys are never produced by a parser; a container with only those has nothing to check either.
  return true;
}
