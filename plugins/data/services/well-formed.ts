import { badRequest } from '../../../kernel/index.ts';

/**
 * Deepest nesting of a value the services take (the attributes object or input is level 1), the
 * kernel's limit for request bodies. HTTP requests are refused by the kernel's input check first;
 * this repeats the rule for callers that do not come through HTTP (the provided `dataObjects`, jobs),
 * before JSON.stringify would overflow on a deep value when the row is written.
 */
export const MAX_NESTING = 64;

/** What is wrong and where: the dotted path from the base (`attributes.data.list.1`) and the kernel's code for it. */
export interface TextProblem {
  path: string;
  code: 'INVALID_TEXT' | 'TOO_DEEP';
  reason: string;
}

// A UTF-16 surrogate without its other half is not a character: PostgreSQL refuses it in jsonb
// (22P02) and silently replaces it in text columns.
const LONE_SURROGATE: Omit<TextProblem, 'path'> = {
  code: 'INVALID_TEXT',
  reason: 'contains a lone UTF-16 surrogate, which is not valid text',
};
const TOO_DEEP: Omit<TextProblem, 'path'> = { code: 'TOO_DEEP', reason: `nests deeper than ${MAX_NESTING} levels` };

export const hasLoneSurrogate = (text: string): boolean => !text.isWellFormed();

interface Frame {
  value: unknown;
  key: string;
  parent: Frame | null;
  depth: number;
}

function pathOf(frame: Frame): string {
  const keys: string[] = [];
  for (let f: Frame | null = frame; f; f = f.parent) if (f.parent !== null || f.key !== '') keys.push(f.key);
  return keys.reverse().join('.');
}

/**
 * The first string or object key holding a lone surrogate, or container nested deeper than
 * MAX_NESTING, in document order; null when there is none. Iterative: a deep value cannot overflow
 * the stack here. Paths are built only for the problem found.
 */
export function findTextProblem(value: unknown, base = ''): TextProblem | null {
  const stack: Frame[] = [{ value, key: base, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.parent !== null && hasLoneSurrogate(frame.key)) return { path: pathOf(frame), ...LONE_SURROGATE };
    const v = frame.value;
    if (typeof v === 'string') {
      if (hasLoneSurrogate(v)) return { path: pathOf(frame), ...LONE_SURROGATE };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (frame.depth >= MAX_NESTING) return { path: pathOf(frame), ...TOO_DEEP };
    const children: Array<[string, unknown]> = Array.isArray(v)
      ? v.map((child, i) => [String(i), child])
      : Object.entries(v);
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i];
      stack.push({ value: child, key, parent: frame, depth: frame.depth + 1 });
    }
  }
  return null;
}

/** Same, as a 400 naming the field with the kernel's code, for inputs checked as a whole (definitions, queries). */
export function assertWellFormed(value: unknown, base = ''): void {
  const problem = findTextProblem(value, base);
  if (problem)
    throw badRequest(`${problem.path || 'input'} ${problem.reason}`, problem.path || undefined, problem.code);
}
